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

    async def events(self) -> AsyncIterator[tuple[int, dict[str, Any]]]:
        """(call index, event) pairs in arrival order; a broken engine stream is an APIError."""
        if len(self.streams) == 1:
            try:
                async for item in self.streams[0]:
                    yield 0, item
            except (httpx.HTTPError, MalformedEvent) as exc:
                raise transport_error(exc) from None
            return
        queue: asyncio.Queue[tuple[int, dict[str, Any] | BaseException | None]] = asyncio.Queue()
        for i, stream in enumerate(self.streams):
            self._readers.append(asyncio.ensure_future(_pump(i, stream, queue)))
        remaining = len(self.streams)
        while remaining:
            i, item = await queue.get()
            if item is None:
                remaining -= 1
            elif isinstance(item, APIError):
                raise item
            elif isinstance(item, BaseException):
                raise transport_error(item if isinstance(item, Exception) else ValueError(item))
            else:
                yield i, item

    def close_soon(self, abort: bool) -> None:
        """Release the engine connections (and abort the calls) without awaiting.

        Safe to call from a cancelled task: the work runs in a task of its own.
        """
        for reader in self._readers:
            reader.cancel()
        if abort:
            self.client.abort_soon(self.ids)
        task = asyncio.get_running_loop().create_task(self.stack.aclose())
        _keep(task)


_pending: set[asyncio.Task[Any]] = set()


def _keep(task: asyncio.Task[Any]) -> None:
    _pending.add(task)
    task.add_done_callback(_pending.discard)


async def _pump(
    index: int,
    stream: AsyncIterator[dict[str, Any]],
    queue: asyncio.Queue[tuple[int, dict[str, Any] | BaseException | None]],
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
