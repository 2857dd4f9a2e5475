"""POST /tokenize and /detokenize; GET /tokenizer_info when enabled."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Request
from pydantic import TypeAdapter, ValidationError
from starlette.responses import Response

from tokenfront.api.body import parse_model, read_json
from tokenfront.api.concurrency import run_cpu
from tokenfront.api.deferred import load_request_modules
from tokenfront.api.errors import bad_request, validation_error
from tokenfront.api.responses import JSONBytesResponse
from tokenfront.api.state import AppState, app_state

if TYPE_CHECKING:
    from tokenfront.render.tokenize import TokenizeChatRequest, TokenizeCompletionRequest

router = APIRouter()


@lru_cache(maxsize=1)
def tokenize_adapter() -> TypeAdapter[Any]:
    """vLLM's `TokenizeCompletionRequest | TokenizeChatRequest` body union (built once, after
    start-up: see api/deferred.py)."""
    load_request_modules()
    from tokenfront.render.tokenize import TokenizeChatRequest, TokenizeCompletionRequest

    return TypeAdapter(TokenizeCompletionRequest | TokenizeChatRequest)


@lru_cache(maxsize=1)
def _chat_only_fields() -> frozenset[str]:
    """TokenizeChatRequest's own fields besides `messages`."""
    from tokenfront.render.tokenize import TokenizeChatRequest, TokenizeCompletionRequest

    shared = set(TokenizeCompletionRequest.model_fields) | {"messages"}
    return frozenset(TokenizeChatRequest.model_fields) - shared


def _parse_tokenize(data: Any) -> TokenizeCompletionRequest | TokenizeChatRequest:
    """vLLM's `TokenizeCompletionRequest | TokenizeChatRequest`, resolved as pydantic's smart
    union resolves vLLM's models: a body both validate as is the one with more fields set,
    fields inside the messages counted, and the completion form on a tie. So a chat body wins
    once it has a message or a chat-only field; `{"prompt": ..., "messages": []}` tokenizes
    the prompt."""
    adapter = tokenize_adapter()
    from tokenfront.render.tokenize import TokenizeChatRequest

    if isinstance(data, dict) and "messages" in data:
        try:
            chat = TokenizeChatRequest.model_validate(data, from_attributes=True)
        except ValidationError:
            pass
        else:
            if chat.messages or "prompt" not in data or not _chat_only_fields().isdisjoint(data):
                return chat
    try:
        return adapter.validate_python(data, from_attributes=True)  # type: ignore[no-any-return]
    except ValidationError as exc:
        raise validation_error(exc) from None


def _tokenize(state: AppState, data: Any) -> Any:
    body = _parse_tokenize(data)
    from tokenfront.render.tokenize import tokenize

    return tokenize(state.model_for(body.model), body)


def _detokenize(state: AppState, data: Any) -> Any:
    load_request_modules()
    from tokenfront.render.tokenize import DetokenizeRequest, detokenize

    body = parse_model(DetokenizeRequest, data)
    model = state.model_for(body.model)
    try:
        return detokenize(model, body)
    except OverflowError as exc:  # an id beyond the tokenizer's id type: vLLM's 400
        raise bad_request(str(exc)) from None


@router.post("/tokenize")
async def tokenize_route(request: Request) -> Response:
    state = app_state(request)
    data = await read_json(request, state.settings.max_request_bytes)
    return JSONBytesResponse(await run_cpu(_tokenize, state, data))


@router.post("/detokenize")
async def detokenize_route(request: Request) -> Response:
    state = app_state(request)
    data = await read_json(request, state.settings.max_request_bytes)
    return JSONBytesResponse(await run_cpu(_detokenize, state, data))


async def tokenizer_info_route(request: Request) -> Response:
    from tokenfront.tokenization.tokenizer_info import tokenizer_info

    state = app_state(request)
    return JSONBytesResponse(await run_cpu(tokenizer_info, state.registry.get(None)))


# Included by the app factory with --enable-tokenizer-info-endpoint only (vLLM's 404 otherwise).
info_router = APIRouter()
info_router.add_api_route("/tokenizer_info", tokenizer_info_route, methods=["GET"])
