"""POST /v1/chat/completions/render, /v1/completions/render, /v1/messages/render and
/v1/responses/render."""

from __future__ import annotations

import functools
from collections.abc import Callable
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


@functools.cache
def _responses_handler() -> tuple[Any, Any]:
    """The Responses request model and renderer (imported on the first Responses request:
    they load the openai SDK's types)."""
    load_request_modules()
    from tokenfront.protocol.responses import ResponsesRequest
    from tokenfront.render.responses import render_responses_request

    return ResponsesRequest, render_responses_request


def _render_body(handler: Callable[[], tuple[Any, Any]], state: AppState, data: Any, header_id: str | None) -> Any:
    """Validate a parsed body with the handler's request model and render it for its model."""
    request_cls, render = handler()
    body = parse_model(request_cls, data)
    return render(
        state.model_for(body.model), body, header_request_id=header_id, max_n=state.settings.max_n_sequences
    )


def render_chat_body(app: Any, state: AppState, data: Any, header_id: str | None) -> Any:
    """A parsed `/v1/chat/completions/render` body to its `GenerateRequest`."""
    return _render_body(_chat_handler, state, data, header_id)


def render_completion_body(app: Any, state: AppState, data: Any, header_id: str | None) -> Any:
    """A parsed `/v1/completions/render` body to its list of `GenerateRequest`s."""
    return _render_body(_completion_handler, state, data, header_id)


def render_messages_body(app: Any, state: AppState, data: Any, header_id: str | None) -> Any:
    """A parsed `/v1/messages/render` body to the `GenerateRequest` of its chat conversion."""
    return _render_body(_messages_handler, state, data, header_id)


def render_responses_body(app: Any, state: AppState, data: Any, header_id: str | None) -> Any:
    """A parsed `/v1/responses/render` body to its `GenerateRequest`."""
    return _render_body(_responses_handler, state, data, header_id)


async def _respond(request: Request, render_body: Callable[..., Any]) -> Response:
    state = app_state(request)
    data = await read_json(request, state.settings.max_request_bytes)
    header_id = request.headers.get("X-Request-Id")
    return JSONBytesResponse(await run_cpu_for(request, render_body, request.app, state, data, header_id))


@router.post("/v1/chat/completions/render")
async def render_chat(request: Request) -> Response:
    return await _respond(request, render_chat_body)


@router.post("/v1/messages/render")
async def render_messages(request: Request) -> Response:
    return await _respond(request, render_messages_body)


@router.post("/v1/responses/render")
async def render_responses(request: Request) -> Response:
    return await _respond(request, render_responses_body)


@router.post("/v1/completions/render")
async def render_completion(request: Request) -> Response:
    return await _respond(request, render_completion_body)
