"""Reasoning and tool-call parsers: a registry of declarative specs over a few grammar engines."""
