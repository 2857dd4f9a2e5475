"""Fast JSON responses (orjson), skipping Pydantic serialisation on hot paths."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.responses import Response


class JSONBytesResponse(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        if isinstance(content, bytes):
            return content
        return orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS)
