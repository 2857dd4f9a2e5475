"""Tokenizers, chat templates and per-model settings: the tokenizer registry."""
