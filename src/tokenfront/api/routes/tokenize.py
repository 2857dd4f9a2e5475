"""POST /tokenize and /detokenize."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import TypeAdapter, ValidationError
from starlette.responses import Response

from tokenfront.api.body import parse_model, read_json
from tokenfront.api.concurrency import run_cpu
from tokenfront.api.errors import validation_error
from tokenfront.api.responses import JSONBytesResponse
from tokenfront.api.state import AppState, app_state
from tokenfront.render.tokenize import (
    DetokenizeRequest,
    TokenizeChatRequest,
    TokenizeCompletionRequest,
    detokenize,
    tokenize,
)

router = APIRouter()
_TOKENIZE = TypeAdapter(TokenizeCompletionRequest | TokenizeChatRequest)


def _parse_tokenize(data: Any) -> TokenizeCompletionRequest | TokenizeChatRequest:
    """vLLM's `TokenizeCompletionRequest | TokenizeChatRequest`; a chat body wins a tie."""
    if isinstance(data, dict) and "messages" in data:
        try:
            return TokenizeChatRequest.model_validate(data)
        except ValidationError:
            pass
    try:
        return _TOKENIZE.validate_python(data)
    except ValidationError as exc:
        raise validation_error(exc) from None


def _tokenize(state: AppState, data: Any) -> Any:
    body = _parse_tokenize(data)
    return tokenize(state.model_for(body.model), body)


def _detokenize(state: AppState, data: Any) -> Any:
    body = parse_model(DetokenizeRequest, data)
    return detokenize(state.model_for(body.model), body)


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
