"""The relay pieces: batched reading of several engine streams, filtering, clean-up."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tokenfront.api.errors import APIError
from tokenfront.gateway.relay import (
    EngineStreamResponse,
    EngineStreams,
    chunk_choice_index,
    derender_batch,
    worth_sending,
)

pytestmark = pytest.mark.anyio


class FakeClient:
    def __init__(self) -> None:
        self.aborted: list[str] = []

    def abort_soon(self, ids: list[str]) -> None:
        self.aborted.extend(ids)


async def events(
    *items: dict[str, Any], fail: Exception | None = None
) -> AsyncIterator[dict[str, Any]]:
    for item in items:
        yield item
        await asyncio.sleep(0)
    if fail is not None:
        raise fail


def streams_of(*iterators: AsyncIterator[dict[str, Any]]) -> tuple[EngineStreams, FakeClient]:
    client = FakeClient()
    ids = [f"generate-tokens-{i}" for i in range(len(iterators))]
    return EngineStreams(client, ids, contextlib.AsyncExitStack(), list(iterators)), client  # type: ignore[arg-type]


async def test_batches_keep_each_calls_order() -> None:
    streams, _ = streams_of(events({"a": 1}, {"a": 2}), events({"b": 1}))
    seen = [item async for batch in streams.batches() for item in batch]
    assert [e for i, e in seen if i == 0] == [{"a": 1}, {"a": 2}]
    assert [e for i, e in seen if i == 1] == [{"b": 1}]


async def test_a_broken_stream_is_an_api_error_after_what_came_before() -> None:
    import httpx

    streams, _ = streams_of(events({"a": 1}, fail=httpx.ReadTimeout("slow")))
    seen = []
    with pytest.raises(APIError) as err:
        async for batch in streams.batches():
            seen.extend(batch)
    assert seen == [(0, {"a": 1})] and err.value.status == 504


def test_worth_sending() -> None:
    empty = {"choices": [{"delta": {"role": None, "content": None}, "finish_reason": None}]}
    assert not worth_sending(empty)
    assert worth_sending({"choices": [{"delta": {"content": "x"}}]})
    assert worth_sending({"choices": [{"delta": {}, "finish_reason": "stop"}]})
    assert worth_sending({"choices": [], "usage": {"prompt_tokens": 1}})
    assert not worth_sending({"choices": [{"text": "", "finish_reason": None}]})
    assert worth_sending({"error": {"message": "x"}})


def test_chunk_choice_index() -> None:
    assert chunk_choice_index({"choices": [{"index": 3}]}) == 3
    assert chunk_choice_index({"choices": []}) == 0


def test_derender_batch_states_and_early_ends() -> None:
    calls: list[tuple[int, str | None]] = []

    def step(call: int, chunk: dict[str, Any], carried: str | None) -> dict[str, Any]:
        calls.append((call, carried))
        if chunk.get("bad"):
            raise ValueError("cannot")
        return {"chunk": {"n": len(calls)}, "stream_state": f"s{len(calls)}"}

    carried: dict[tuple[int, int], str] = {}
    batch = [
        (0, {"choices": [{"index": 0}]}),
        (0, {"choices": [{"index": 1}]}),
        (0, {"choices": [{"index": 0}]}),
    ]
    out, ended = derender_batch(step, batch, carried)
    assert ended is None and [o["n"] for o in out] == [1, 2, 3]
    assert calls == [(0, None), (0, None), (0, "s1")]
    out, ended = derender_batch(step, [(1, {"error": {"message": "x"}}), (1, {})], carried)
    assert ended == "engine" and out == [{"error": {"message": "x"}}]
    out, ended = derender_batch(step, [(1, {"bad": True, "choices": []})], carried)
    assert ended == "derender" and out[0]["error"]["code"] == 502


async def test_response_aborts_even_if_its_body_never_ran() -> None:
    streams, client = streams_of(events())
    started = False

    async def body() -> AsyncIterator[bytes]:
        nonlocal started
        started = True
        await asyncio.sleep(10)
        yield b""

    async def receive() -> dict[str, Any]:
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        await asyncio.sleep(0.05)

    scope = {"type": "http", "asgi": {"spec_version": "2.3"}}
    await EngineStreamResponse(body(), streams)(scope, receive, send)
    assert client.aborted == ["generate-tokens-0"] and streams.closed
    streams.close_soon(abort=True)  # a second close does nothing
    assert client.aborted == ["generate-tokens-0"]
