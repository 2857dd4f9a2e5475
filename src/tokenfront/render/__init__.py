"""Render: chat/completion requests -> token ids and vLLM's GenerateRequest JSON."""
