"""Reasoning parser specs; every module here registers its parsers on import."""
