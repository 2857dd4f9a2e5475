"""Gateway mode: OpenAI `/v1/chat/completions` and `/v1/completions` over a token-in/token-out
engine, doing render -> `POST {engine}/inference/v1/generate` -> derender in process."""
