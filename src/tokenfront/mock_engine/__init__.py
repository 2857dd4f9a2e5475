"""A scripted stand-in for vLLM's token-in/token-out engine (`vllm serve --tokens-only`).

A test double for end-to-end tests and demos: it samples nothing, it replays scripted text
encoded with the model's tokenizer.  The real engine is vLLM on a GPU.
"""
