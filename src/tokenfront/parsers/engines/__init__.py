"""Grammar engines the parser specs are written over."""
