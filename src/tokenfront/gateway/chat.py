"""`POST /v1/chat/completions` in gateway mode: render, generate on the engine, derender."""

from __future__ import annotations

import functools
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any

from tokenfront.api.body import parse_model
from tokenfront.api.errors import APIError, bad_request
from tokenfront.api.state import AppState
from tokenfront.derender.chat import derender_chat
from tokenfront.derender.state import StateCodec
from tokenfront.derender.stream import STOP_STRINGS_UNSUPPORTED, derender_chat_chunk
from tokenfront.gateway.fingerprint import stamp_chunk
from tokenfront.gateway.relay import EngineStreams, derender_guarded, derendered, worth_sending
from tokenfront.gateway.sse import DONE, event
from tokenfront.protocol.generate import (
    DerenderChatRequest,
    DerenderChatStreamRequest,
    GenerateTokensResponse,
    GenerateTokensStreamResponse,
)
from tokenfront.protocol.requests import ChatCompletionRequest
from tokenfront.render.chat import render_chat_request
from tokenfront.tokenization.registry import ServedModel


@dataclass
class ChatCall:
    """A rendered chat request: what goes to the engine and what derender needs back."""

    model: ServedModel
    request: ChatCompletionRequest
    body: dict[str, Any]

    @property
    def bodies(self) -> list[dict[str, Any]]:
        return [self.body]

    @property
    def prompt_ids(self) -> list[int]:
        ids: list[int] = self.body["token_ids"]
        return ids


def prepare_chat(state: AppState, data: Any, header_id: str | None) -> ChatCall:
    """Validate and render (the render route's steps), keeping the adjusted request."""
    request = parse_model(ChatCompletionRequest, data)
    model = state.model_for(request.model)
    body = render_chat_request(
        model, request, header_request_id=header_id, max_n=state.settings.max_n_sequences
    )
    if request.stream and request.stop:
        # A tokens-only engine cannot cut stop strings and streamed text cannot be taken back.
        raise bad_request(STOP_STRINGS_UNSUPPORTED, param="stop")
    return ChatCall(model, request, body)


def _derender_full(state: AppState, call: ChatCall, answer: dict[str, Any]) -> dict[str, Any]:
    request = DerenderChatRequest(
        model=call.request.model,
        generate_response=GenerateTokensResponse.model_validate(answer),
        prompt_tokens=len(call.prompt_ids),
        prompt_token_ids=call.prompt_ids,
        chat_request=call.request,
    )
    return derender_chat(call.model, request, state.settings)


def finish_chat(state: AppState, call: ChatCall, answers: list[dict[str, Any]]) -> dict[str, Any]:
    """The chat.completion for the engine's complete answer (CPU work: run off the loop)."""
    result = derender_guarded(_derender_full, state, call, answers[0])
    result["id"] = call.body["request_id"]
    result["system_fingerprint"] = state.system_fingerprint
    return result


def _derender_chunk(
    state: AppState,
    codec: StateCodec,
    call: ChatCall,
    _prompt: int,
    chunk: dict[str, Any],
    carried: str | None,
) -> dict[str, Any]:
    request = DerenderChatStreamRequest(
        stream=True,
        model=call.request.model,
        generate_chunk=GenerateTokensStreamResponse.model_validate(chunk),
        stream_state=carried,
        prompt_tokens=len(call.prompt_ids),
        prompt_token_ids=call.prompt_ids,
        chat_request=call.request,
    )
    return derender_chat_chunk(call.model, request, state.settings, codec)


async def chat_events(
    state: AppState, codec: StateCodec, call: ChatCall, streams: EngineStreams
) -> AsyncGenerator[bytes, None]:
    """The client's SSE stream: one derendered chunk per engine chunk, then `[DONE]`.

    Each choice (`n` > 1 interleaves them) carries its own derender state.  An engine
    failure mid-stream becomes an error event; a client disconnect aborts the engine call.
    """
    step = functools.partial(_derender_chunk, state, codec, call)
    options = call.request.stream_options
    include_usage = bool(options and options.include_usage)
    try:
        try:
            async for _, chunk in derendered(streams, step):
                if worth_sending(chunk):
                    if "error" not in chunk:
                        chunk["id"] = call.body["request_id"]
                    stamp_chunk(chunk, state.system_fingerprint, include_usage)
                    yield event(chunk)
        except APIError as exc:
            yield event(exc.body())
        yield DONE
    finally:
        streams.close_soon(abort=not streams.finished)
