"""Fast JSON responses (orjson), skipping Pydantic serialisation on hot paths."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from tokenfront import json_codec


class JSONBytesResponse(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        if isinstance(content, bytes):
            return content
        return json_codec.dumps(content, non_str_keys=True)
