"""Model-specific prompt encoders that vLLM uses instead of a Jinja chat template."""
