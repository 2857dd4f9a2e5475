"""Derender: token-in/token-out generate responses back into OpenAI chat/completion answers."""
