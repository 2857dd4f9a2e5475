"""Thin routers: read the body, call a plain function, write the answer."""
