"""POST /v1/chat/completions/render and /v1/completions/render."""

from __future__ import annotations

import functools
from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

from tokenfront.api.body import parse_model, read_json
from tokenfront.api.concurrency import run_cpu_for
from tokenfront.api.deferred import load_request_modules
from tokenfront.api.responses import JSONBytesResponse
from tokenfront.api.state import AppState, app_state

router = APIRouter()


@functools.cache
def _chat_handler() -> tuple[Any, Any]:
    """The chat request model and renderer (imported after start-up: api/deferred.py)."""
    load_request_modules()
    from tokenfront.protocol.requests import ChatCompletionRequest
    from tokenfront.render.chat import render_chat_request

    return ChatCompletionRequest, render_chat_request


@functools.cache
def _completion_handler() -> tuple[Any, Any]:
    """The completion request model and renderer (imported after start-up)."""
    load_request_modules()
    from tokenfront.protocol.requests import CompletionRequest
    from tokenfront.render.completion import render_completion_request

    return CompletionRequest, render_completion_request


@functools.cache
def _messages_handler() -> tuple[Any, Any]:
    """The Anthropic Messages request model and renderer (imported after start-up)."""
    load_request_modules()
    from tokenfront.protocol.anthropic import AnthropicMessagesRequest
    from tokenfront.render.anthropic import render_messages_request

    return AnthropicMessagesRequest, render_messages_request


def render_chat_body(app: Any, state: AppState, data: Any, header_id: str | None) -> Any:
    """A parsed `/v1/chat/completions/render` body to its `GenerateRequest`."""
    request_cls, render_chat_request = _chat_handler()
    body = parse_model(request_cls, data)
    model = state.model_for(body.model)
    return render_chat_request(
        model, body, header_request_id=header_id, max_n=state.settings.max_n_sequences
    )


def render_completion_body(app: Any, state: AppState, data: Any, header_id: str | None) -> Any:
    """A parsed `/v1/completions/render` body to its list of `GenerateRequest`s."""
    request_cls, render_completion_request = _completion_handler()
    body = parse_model(request_cls, data)
    model = state.model_for(body.model)
    return render_completion_request(
        model, body, header_request_id=header_id, max_n=state.settings.max_n_sequences
    )


def render_messages_body(app: Any, state: AppState, data: Any, header_id: str | None) -> Any:
    """A parsed `/v1/messages/render` body to the `GenerateRequest` of its chat conversion."""
    request_cls, render_messages_request = _messages_handler()
    body = parse_model(request_cls, data)
    model = state.model_for(body.model)
    return render_messages_request(
        model, body, header_request_id=header_id, max_n=state.settings.max_n_sequences
    )


@router.post("/v1/chat/completions/render")
async def render_chat(request: Request) -> Response:
    state = app_state(request)
    data = await read_json(request, state.settings.max_request_bytes)
    header_id = request.headers.get("X-Request-Id")
    result = await run_cpu_for(request, render_chat_body, request.app, state, data, header_id)
    return JSONBytesResponse(result)


@router.post("/v1/messages/render")
async def render_messages(request: Request) -> Response:
    state = app_state(request)
    data = await read_json(request, state.settings.max_request_bytes)
    header_id = request.headers.get("X-Request-Id")
    result = await run_cpu_for(request, render_messages_body, request.app, state, data, header_id)
    return JSONBytesResponse(result)


@router.post("/v1/completions/render")
async def render_completion(request: Request) -> Response:
    state = app_state(request)
    data = await read_json(request, state.settings.max_request_bytes)
    header_id = request.headers.get("X-Request-Id")
    result = await run_cpu_for(request, render_completion_body, request.app, state, data, header_id)
    return JSONBytesResponse(result)
