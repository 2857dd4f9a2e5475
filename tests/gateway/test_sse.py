"""Reading the engine's SSE stream and writing the client's."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator

import pytest

from tokenfront.gateway.sse import (
    DONE,
    KEEP_ALIVE,
    MalformedEvent,
    event,
    read_events,
    with_keep_alive,
)

pytestmark = pytest.mark.anyio


async def lines(*items: str) -> AsyncIterator[str]:
    for item in items:
        yield item


async def collect(*items: str) -> list[dict[str, object]]:
    return [e async for e in read_events(lines(*items))]


async def test_events_until_done() -> None:
    got = await collect(
        ": comment", 'data: {"a": 1}', "", "event: x", 'data:{"b": 2}', "", "data: [DONE]", "",
        'data: {"after": 1}', "",
    )  # fmt: skip
    assert got == [{"a": 1}, {"b": 2}]


async def test_multiline_data_and_unterminated_tail() -> None:
    assert await collect('data: {"a":', "data: 1}", "") == [{"a": 1}]
    assert await collect('data: {"tail": true}') == [{"tail": True}]


async def test_malformed_events() -> None:
    with pytest.raises(MalformedEvent):
        await collect("data: {nope", "")
    with pytest.raises(MalformedEvent):
        await collect("data: [1, 2]", "")


def test_writing() -> None:
    assert event({"x": "é"}) == 'data: {"x":"é"}\n\n'.encode()
    assert DONE == b"data: [DONE]\n\n"


async def slow_events(closed: list[bool]) -> AsyncGenerator[bytes, None]:
    try:
        yield b"data: 1\n\n"
        await asyncio.sleep(0.35)
        yield b"data: 2\n\n"
        await asyncio.sleep(0.35)
        yield DONE
    finally:
        closed.append(True)


async def test_keep_alive_comments_fill_the_idle_gaps_and_lose_no_event() -> None:
    closed: list[bool] = []
    got = [e async for e in with_keep_alive(slow_events(closed), 0.1)]
    events = [e for e in got if e != KEEP_ALIVE]
    assert events == [b"data: 1\n\n", b"data: 2\n\n", DONE]
    assert got.index(b"data: 2\n\n") > 2 and len(got) - len(events) >= 4
    assert closed == [True]


async def test_no_interval_leaves_the_stream_as_it_is() -> None:
    source = slow_events([])
    assert with_keep_alive(source, 0) is source
    await source.aclose()


async def test_closing_the_kept_alive_stream_closes_the_source() -> None:
    closed: list[bool] = []
    stream = with_keep_alive(slow_events(closed), 0.1)
    assert await stream.__anext__() == b"data: 1\n\n"
    assert await stream.__anext__() == KEEP_ALIVE
    await stream.aclose()
    assert closed == [True]
