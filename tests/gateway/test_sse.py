"""Reading the engine's SSE stream and writing the client's."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tokenfront.gateway.sse import DONE, MalformedEvent, event, read_events

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
