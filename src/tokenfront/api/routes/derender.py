"""Derender routes: `/v1/chat/completions/derender` and `/v1/completions/derender`.

Both paths take a non-streaming body (`stream` absent or false) or a streaming one
(`stream: true`, one generate chunk plus the carried `stream_state`), like vLLM.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, FastAPI, Request
from pydantic import ValidationError
from starlette.responses import Response

from tokenfront.api.body import read_json
from tokenfront.api.concurrency import run_cpu_for
from tokenfront.api.deferred import load_request_modules
from tokenfront.api.errors import APIError, bad_request, validation_error
from tokenfront.api.responses import JSONBytesResponse
from tokenfront.api.state import AppState, app_state
from tokenfront.derender.state import StateCodec
from tokenfront.memory import release_free_heap
from tokenfront.tokenization.detokenizer import tokenizer_view

if TYPE_CHECKING:
    from tokenfront.protocol.generate import DerenderBodyAdapter

_codec_lock = threading.Lock()


@contextlib.asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    # Create the signer at start-up so a missing key is reported right away.
    state = getattr(app.state, "tokenfront", None)
    if isinstance(state, AppState):
        state_codec(app, state)
        for model in state.registry.models:
            if model.tokenizer is not None:
                tokenizer_view(model.tokenizer)
    release_free_heap()  # what loading the tokenizers parsed and dropped
    yield


router = APIRouter(lifespan=_lifespan)


def state_codec(app: Any, state: AppState) -> StateCodec:
    """The app's stream_state signer, created once (a random key is logged as a warning)."""
    codec = getattr(app.state, "derender_codec", None)
    if codec is None:
        with _codec_lock:
            codec = getattr(app.state, "derender_codec", None)
            if codec is None:
                codec = StateCodec(state.settings.stream_state_key)
                app.state.derender_codec = codec
    return codec


def _validate(adapter: DerenderBodyAdapter[Any], data: Any) -> Any:
    try:
        return adapter.validate_python(data)
    except ValidationError as exc:
        raise validation_error(exc) from None


def _run(
    state: AppState,
    codec: StateCodec,
    adapter: DerenderBodyAdapter[Any],
    data: Any,
    plain: Callable[..., dict[str, Any]],
    streamed: Callable[..., dict[str, Any]],
    stream_cls: type,
) -> dict[str, Any]:
    """Validate, resolve the model and derender, all off the event loop."""
    body = _validate(adapter, data)
    model = state.model_for(body.model)
    try:
        if isinstance(body, stream_cls):
            return streamed(model, body, state.settings, codec)
        return plain(model, body, state.settings)
    except APIError:
        raise
    except (ValueError, TypeError, OverflowError) as exc:
        # vLLM answers these as the client's 400.
        raise bad_request(str(exc)) from None


@functools.cache
def _chat_handlers() -> tuple[Any, ...]:
    """The chat body adapter, handlers and stream request class (imported after start-up:
    api/deferred.py), looked up once."""
    load_request_modules()
    from tokenfront.derender.chat import derender_chat
    from tokenfront.derender.stream import derender_chat_chunk
    from tokenfront.protocol.generate import CHAT_BODY, DerenderChatStreamRequest

    return CHAT_BODY, derender_chat, derender_chat_chunk, DerenderChatStreamRequest


@functools.cache
def _completion_handlers() -> tuple[Any, ...]:
    """As `_chat_handlers`, for completions."""
    load_request_modules()
    from tokenfront.derender.completion import derender_completion
    from tokenfront.derender.stream import derender_completion_chunk
    from tokenfront.protocol.generate import COMPLETION_BODY, DerenderCompletionStreamRequest

    return (
        COMPLETION_BODY,
        derender_completion,
        derender_completion_chunk,
        DerenderCompletionStreamRequest,
    )


def derender_chat_body(app: Any, state: AppState, data: Any, header_id: str | None) -> Any:
    """A parsed `/v1/chat/completions/derender` body to its answer (plain or one stream chunk)."""
    codec = state_codec(app, state)
    adapter, plain, streamed, stream_cls = _chat_handlers()
    return _run(state, codec, adapter, data, plain, streamed, stream_cls)


def derender_completion_body(app: Any, state: AppState, data: Any, header_id: str | None) -> Any:
    """A parsed `/v1/completions/derender` body to its answer (plain or one stream chunk)."""
    codec = state_codec(app, state)
    adapter, plain, streamed, stream_cls = _completion_handlers()
    return _run(state, codec, adapter, data, plain, streamed, stream_cls)


@router.post("/v1/chat/completions/derender")
async def derender_chat_route(request: Request) -> Response:
    state = app_state(request)
    data = await read_json(request, state.settings.max_request_bytes)
    result = await run_cpu_for(request, derender_chat_body, request.app, state, data, None)
    return JSONBytesResponse(result)


@router.post("/v1/completions/derender")
async def derender_completion_route(request: Request) -> Response:
    state = app_state(request)
    data = await read_json(request, state.settings.max_request_bytes)
    result = await run_cpu_for(request, derender_completion_body, request.app, state, data, None)
    return JSONBytesResponse(result)
