"""Server-sent events: reading the engine's stream and writing the client's."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import orjson

from tokenfront import json_codec

DONE = b"data: [DONE]\n\n"


def event(data: Any) -> bytes:
    """One `data:` event carrying `data` as JSON."""
    return b"data: " + json_codec.dumps(data) + b"\n\n"


class MalformedEvent(ValueError):
    """An engine event whose data is not a JSON object."""


async def read_events(lines: AsyncIterator[str]) -> AsyncIterator[dict[str, Any]]:
    """The JSON objects of `data:` events until `data: [DONE]` (or the end of the stream).

    Multi-line data fields are joined with newlines, as the SSE format says; comments and
    other fields (`event:`, `id:`, `retry:`) are ignored.
    """
    parts: list[str] = []
    async for line in lines:
        if line == "":
            if not parts:
                continue
            data = "\n".join(parts)
            parts = []
            if data.strip() == "[DONE]":
                return
            yield _decode(data)
            continue
        if line.startswith("data:"):
            value = line[5:]
            parts.append(value[1:] if value.startswith(" ") else value)
    if parts:
        data = "\n".join(parts)
        if data.strip() != "[DONE]":
            yield _decode(data)


def _decode(data: str) -> dict[str, Any]:
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise MalformedEvent(f"engine sent an event that is not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise MalformedEvent("engine sent an event that is not a JSON object")
    return value
