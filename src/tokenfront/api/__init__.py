"""HTTP layer: app factory, routers and OpenAI-style errors."""
