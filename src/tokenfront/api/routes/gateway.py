"""Gateway mode routes: `POST /v1/chat/completions` and `POST /v1/completions`.

Registered only when `--engine-url` is set.  Each request is rendered, sent to the engine's
`/inference/v1/generate` over one shared keep-alive `httpx.AsyncClient` (created in the
lifespan) and derendered in process.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from starlette.responses import Response

from tokenfront.api.body import read_json
from tokenfront.api.concurrency import run_cpu
from tokenfront.api.responses import JSONBytesResponse
from tokenfront.api.routes.derender import state_codec
from tokenfront.api.state import AppState, app_state
from tokenfront.config import ServerSettings
from tokenfront.gateway.chat import chat_events, finish_chat, prepare_chat
from tokenfront.gateway.client import EngineClient
from tokenfront.gateway.completion import completion_events, finish_completion, prepare_completion
from tokenfront.gateway.relay import (
    ClientGone,
    EngineStreamResponse,
    EngineStreams,
    engine_ids,
    unless_disconnected,
)
from tokenfront.gateway.sse import with_keep_alive

# Status logged for a request whose client went away (never reaches the client).
CLIENT_CLOSED = 499


def engine_client_for(settings: ServerSettings) -> EngineClient:
    assert settings.engine_url, "gateway mode needs an engine URL"
    return EngineClient(
        settings.engine_url,
        timeout=settings.engine_timeout,
        max_connections=settings.engine_max_connections,
    )


@contextlib.asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    state = getattr(app.state, "tokenfront", None)
    client = None
    if isinstance(state, AppState) and getattr(app.state, "engine_client", None) is None:
        client = engine_client_for(state.settings)
        app.state.engine_client = client
    try:
        yield
    finally:
        if client is not None:
            app.state.engine_client = None
            await client.aclose()


router = APIRouter(lifespan=_lifespan)


def _client(request: Request) -> EngineClient:
    client: EngineClient | None = getattr(request.app.state, "engine_client", None)
    if client is None:  # an app driven without its lifespan (e.g. a bare ASGI test client)
        client = engine_client_for(app_state(request).settings)
        request.app.state.engine_client = client
    return client


async def _generate_all(client: EngineClient, bodies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    tasks = [asyncio.ensure_future(client.generate(body)) for body in bodies]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        client.abort_soon(engine_ids(bodies))
        raise


async def _serve(
    request: Request,
    prepare: Callable[[AppState, Any, str | None], Any],
    events: Callable[..., AsyncGenerator[bytes, None]],
    finish: Callable[[AppState, Any, list[dict[str, Any]]], dict[str, Any]],
) -> Response:
    """Render, call the engine (streaming or not), derender."""
    state = app_state(request)
    data = await read_json(request, state.settings.max_request_bytes)
    call = await run_cpu(prepare, state, data, request.headers.get("X-Request-Id"))
    client = _client(request)
    if call.request.stream:
        streams = await EngineStreams.open(client, call.bodies)
        codec = state_codec(request.app, state)
        body = with_keep_alive(
            events(state, codec, call, streams), state.settings.sse_keep_alive_interval
        )
        return EngineStreamResponse(body, streams)
    try:
        answers = await unless_disconnected(
            request, client, engine_ids(call.bodies), _generate_all(client, call.bodies)
        )
    except ClientGone:
        return Response(status_code=CLIENT_CLOSED)
    return JSONBytesResponse(await run_cpu(finish, state, call, answers))


@router.post("/v1/chat/completions")
async def chat_completions(request: Request) -> Response:
    return await _serve(request, prepare_chat, chat_events, finish_chat)


@router.post("/v1/completions")
async def completions(request: Request) -> Response:
    return await _serve(request, prepare_completion, completion_events, finish_completion)
