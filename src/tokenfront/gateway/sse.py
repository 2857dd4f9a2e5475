"""Server-sent events: reading the engine's stream and writing the client's."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

import orjson

from tokenfront import json_codec

DONE = b"data: [DONE]\n\n"
KEEP_ALIVE = b": keep-alive\n\n"


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


def with_keep_alive(events: AsyncGenerator[bytes, None], interval: float) -> AsyncGenerator[bytes, None]:
    """`events` plus an SSE comment each time `interval` seconds pass without an event
    (vLLM's --sse-keep-alive-interval: a proxy with a read timeout keeps the connection open
    while the engine queues or prefills). An interval of 0 returns `events` itself."""
    if interval <= 0:
        return events
    return _kept_alive(events, interval)


async def _kept_alive(events: AsyncGenerator[bytes, None], interval: float) -> AsyncGenerator[bytes, None]:
    # One pending step of `events` at a time; a timeout leaves it running (asyncio.wait does
    # not cancel), so no event is lost to a keep-alive.
    step = asyncio.ensure_future(events.__anext__())
    try:
        while True:
            done, _ = await asyncio.wait({step}, timeout=interval)
            if not done:
                yield KEEP_ALIVE
                continue
            try:
                data = step.result()
            except StopAsyncIteration:
                return
            yield data
            step = asyncio.ensure_future(events.__anext__())
    finally:
        step.cancel()
        with contextlib.suppress(BaseException):
            await step
        await events.aclose()
