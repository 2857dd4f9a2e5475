"""Moving engine calls along: open streams, merge them, abort what the client left behind."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any, TypeVar

import httpx
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from tokenfront.api.concurrency import run_cpu
from tokenfront.api.errors import APIError
from tokenfront.gateway.client import (
    EngineClient,
    engine_request_id,
    gateway_error,
    transport_error,
)
from tokenfront.gateway.sse import MalformedEvent

T = TypeVar("T")


class ClientGone(Exception):
    """The client closed the connection before the answer was ready."""


def engine_ids(bodies: list[dict[str, Any]]) -> list[str]:
    return [engine_request_id(str(body["request_id"])) for body in bodies]


async def _wait_disconnect(request: Request) -> None:
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            return


async def unless_disconnected(
    request: Request, client: EngineClient, ids: list[str], work: Awaitable[T]
) -> T:
    """`work`'s result; if the client disconnects first, abort `ids` and raise `ClientGone`.

    Call only once the request body has been read (the next message is the disconnect).
    """
    task = asyncio.ensure_future(work)
    watcher = asyncio.ensure_future(_wait_disconnect(request))
    try:
        await asyncio.wait({task, watcher}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        task.cancel()
        watcher.cancel()
        client.abort_soon(ids)
        raise
    if task.done():
        watcher.cancel()
        return task.result()
    task.cancel()
    client.abort_soon(ids)
    raise ClientGone


@dataclass
class EngineStreams:
    """Open streaming generate calls (one per engine request), read as one event sequence."""

    client: EngineClient
    ids: list[str]
    stack: contextlib.AsyncExitStack
    streams: list[AsyncIterator[dict[str, Any]]]
    # Set once every call ended on its own ([DONE] or an engine error event): no abort.
    finished: bool = False
    closed: bool = False
    _readers: list[asyncio.Task[None]] = field(default_factory=list)

    @classmethod
    async def open(cls, client: EngineClient, bodies: list[dict[str, Any]]) -> EngineStreams:
        """Start every call; if one is refused, close and abort the others and raise."""
        stack = contextlib.AsyncExitStack()
        ids = engine_ids(bodies)
        streams = []
        try:
            for body in bodies:
                streams.append(await stack.enter_async_context(client.stream(body)))
        except BaseException:
            if streams:
                client.abort_soon(ids[: len(streams)])
            await stack.aclose()
            raise
        return cls(client, ids, stack, streams)

    async def batches(self) -> AsyncIterator[list[tuple[int, dict[str, Any]]]]:
        """(call index, event) pairs in arrival order, in batches of what has arrived.

        One reader task per call feeds a bounded queue (so a slow client slows the engine
        reads down); each batch is everything queued at that moment, so derender work
        goes to the worker thread once per batch rather than once per token when the
        engine runs ahead.  A broken engine stream is an `APIError` after the events
        that came before it.
        """
        queue: asyncio.Queue[_Item] = asyncio.Queue(maxsize=MAX_BATCH)
        for i, stream in enumerate(self.streams):
            self._readers.append(asyncio.ensure_future(_pump(i, stream, queue)))
        remaining = len(self.streams)
        while remaining:
            items = [await queue.get()]
            while len(items) < MAX_BATCH and not queue.empty():
                items.append(queue.get_nowait())
            batch: list[tuple[int, dict[str, Any]]] = []
            for i, item in items:
                if item is None:
                    remaining -= 1
                elif isinstance(item, BaseException):
                    if batch:
                        yield batch
                    raise transport_error(item if isinstance(item, Exception) else ValueError(item))
                else:
                    batch.append((i, item))
            if batch:
                yield batch

    def close_soon(self, abort: bool) -> None:
        """Release the engine connections (and abort the calls) without awaiting.

        Safe to call from a cancelled task: the work runs in a task of its own.  Only the
        first call does anything.
        """
        if self.closed:
            return
        self.closed = True
        for reader in self._readers:
            reader.cancel()
        if abort:
            self.client.abort_soon(self.ids)
        task = asyncio.get_running_loop().create_task(self.stack.aclose())
        _keep(task)


# Most engine events read ahead and derendered in one go.
MAX_BATCH = 64
_Item = tuple[int, dict[str, Any] | BaseException | None]
_pending: set[asyncio.Task[Any]] = set()


def _keep(task: asyncio.Task[Any]) -> None:
    _pending.add(task)
    task.add_done_callback(_pending.discard)


async def _pump(
    index: int,
    stream: AsyncIterator[dict[str, Any]],
    queue: asyncio.Queue[_Item],
) -> None:
    try:
        async for item in stream:
            await queue.put((index, item))
    except (httpx.HTTPError, MalformedEvent) as exc:
        await queue.put((index, exc))
        return
    await queue.put((index, None))


def derender_guarded(fn: Callable[..., T], *args: Any) -> T:
    """Run a derender step on engine output; what it refuses is the engine's fault (502)."""
    try:
        return fn(*args)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        raise gateway_error(
            HTTPStatus.BAD_GATEWAY, f"invalid engine response: {where}: {first.get('msg')}"
        ) from None
    except APIError as exc:
        if exc.status != HTTPStatus.BAD_REQUEST:
            raise
        raise gateway_error(
            HTTPStatus.BAD_GATEWAY, f"engine output could not be derendered: {exc.message}"
        ) from None
    except (ValueError, TypeError, OverflowError) as exc:
        raise gateway_error(
            HTTPStatus.BAD_GATEWAY, f"engine output could not be derendered: {exc}"
        ) from None


class EngineStreamResponse(StreamingResponse):
    """An SSE response that releases its engine streams however it ends.

    The body generator closes them itself; this also covers a client that disconnects
    before the generator ever ran (its `finally` never entered), aborting the engine calls.
    """

    def __init__(self, content: AsyncIterator[bytes], streams: EngineStreams) -> None:
        super().__init__(content, media_type="text/event-stream", headers=_SSE_HEADERS)
        self.streams = streams

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.streams.close_soon(abort=not self.streams.finished)


_SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


# A derender step: (call index, engine chunk, carried stream_state) -> derender's answer.
Step = Callable[[int, dict[str, Any], str | None], dict[str, Any]]


def chunk_choice_index(chunk: dict[str, Any]) -> int:
    """The choice an engine chunk carries (the usage-only chunk counts as choice 0)."""
    choices = chunk.get("choices") or []
    if choices and isinstance(choices[0], dict):
        return int(choices[0].get("index", 0))
    return 0


def _says_nothing(choice: dict[str, Any]) -> bool:
    if choice.get("finish_reason") is not None or choice.get("logprobs") is not None:
        return False
    if "delta" in choice:
        return not any(v for v in choice["delta"].values())
    return not choice.get("text")


def worth_sending(chunk: dict[str, Any]) -> bool:
    """False for a chunk with no text, role, tool call, finish, logprobs or usage.

    Derender answers every engine chunk (a parser holding markup back gives an empty
    delta); an OpenAI server leaves such chunks out of the stream, and so does the gateway.
    """
    if "error" in chunk or chunk.get("usage") is not None or not chunk["choices"]:
        return True
    return not all(_says_nothing(c) for c in chunk["choices"])


def derender_batch(
    step: Step, batch: list[tuple[int, dict[str, Any]]], carried: dict[tuple[int, int], str]
) -> tuple[list[dict[str, Any]], str | None]:
    """Derender a batch in order, each (call, choice) with its own carried state.

    Returns the chunks and how the stream ended early, if it did: "engine" (the engine
    sent an error event, passed on as is) or "derender" (its output could not be
    derendered; the error body is the last item).
    """
    out: list[dict[str, Any]] = []
    for call, chunk in batch:
        if "error" in chunk:
            out.append({"error": chunk["error"]})
            return out, "engine"
        key = (call, chunk_choice_index(chunk))
        try:
            result = derender_guarded(step, call, chunk, carried.get(key))
        except APIError as exc:
            out.append(exc.body())
            return out, "derender"
        carried[key] = result["stream_state"]
        out.append(result["chunk"])
    return out, None


async def derendered(
    streams: EngineStreams, step: Step
) -> AsyncIterator[tuple[int, dict[str, Any]]]:
    """(call index, derendered chunk or error body) for every engine event, in order.

    Transport failures raise `APIError`; `streams.finished` tells whether the engine
    calls ended by themselves.
    """
    carried: dict[tuple[int, int], str] = {}
    async for batch in streams.batches():
        out, ended = await run_cpu(derender_batch, step, batch, carried)
        calls = [call for call, _ in batch]
        for call, chunk in zip(calls, out, strict=False):
            yield call, chunk
        if ended is not None:
            streams.finished = ended == "engine"
            return
    streams.finished = True
