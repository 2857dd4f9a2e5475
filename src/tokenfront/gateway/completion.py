"""`POST /v1/completions` in gateway mode: one engine call per prompt, derendered together."""

from __future__ import annotations

import functools
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any

from tokenfront.api.body import parse_model
from tokenfront.api.errors import APIError, bad_request
from tokenfront.api.state import AppState
from tokenfront.derender.completion import derender_completion
from tokenfront.derender.state import StateCodec
from tokenfront.derender.stream import STOP_STRINGS_UNSUPPORTED, derender_completion_chunk
from tokenfront.gateway.fingerprint import stamp_chunk
from tokenfront.gateway.relay import EngineStreams, derender_guarded, derendered, worth_sending
from tokenfront.gateway.sse import DONE, event
from tokenfront.protocol.generate import (
    DerenderCompletionRequest,
    DerenderCompletionStreamRequest,
    GenerateTokensResponse,
    GenerateTokensStreamResponse,
)
from tokenfront.protocol.requests import CompletionRequest
from tokenfront.render.completion import render_completion_request
from tokenfront.tokenization.registry import ServedModel


@dataclass
class CompletionCall:
    """A rendered completion request: one engine body per prompt."""

    model: ServedModel
    request: CompletionRequest
    bodies: list[dict[str, Any]]

    @property
    def n(self) -> int:
        return int(self.request.n or 1)

    @property
    def response_id(self) -> str:
        """The id of the answer: the rendered id, without the per-prompt suffix."""
        first = str(self.bodies[0]["request_id"])
        return first if len(self.bodies) == 1 else first.rsplit("-", 1)[0]


def prepare_completion(state: AppState, data: Any, header_id: str | None) -> CompletionCall:
    request = parse_model(CompletionRequest, data)
    model = state.model_for(request.model)
    bodies = render_completion_request(
        model, request, header_request_id=header_id, max_n=state.settings.max_n_sequences
    )
    if request.stream and request.stop:
        raise bad_request(STOP_STRINGS_UNSUPPORTED, param="stop")
    if request.echo:
        raise bad_request("echo is not supported in gateway mode", param="echo")
    return CompletionCall(model, request, bodies)


def _derender_full(
    state: AppState, call: CompletionCall, answers: list[dict[str, Any]]
) -> dict[str, Any]:
    request = DerenderCompletionRequest(
        model=call.request.model,
        generate_responses=[GenerateTokensResponse.model_validate(a) for a in answers],
        prompt_tokens=[len(b["token_ids"]) for b in call.bodies],
        prompt_token_ids=[b["token_ids"] for b in call.bodies],
        completion_request=call.request,
    )
    return derender_completion(call.model, request, state.settings)


def finish_completion(
    state: AppState, call: CompletionCall, answers: list[dict[str, Any]]
) -> dict[str, Any]:
    """The text_completion for the engine's answers, one per prompt (CPU work)."""
    result = derender_guarded(_derender_full, state, call, answers)
    result["id"] = call.response_id
    result["system_fingerprint"] = state.system_fingerprint
    return result


def _derender_chunk(
    state: AppState,
    codec: StateCodec,
    call: CompletionCall,
    prompt: int,
    chunk: dict[str, Any],
    carried: str | None,
) -> dict[str, Any]:
    body = call.bodies[prompt]
    request = DerenderCompletionStreamRequest(
        stream=True,
        model=call.request.model,
        generate_chunk=GenerateTokensStreamResponse.model_validate(chunk),
        stream_state=carried,
        prompt_tokens=len(body["token_ids"]),
        prompt_token_ids=body["token_ids"],
        completion_request=call.request,
    )
    return derender_completion_chunk(call.model, request, state.settings, codec)


def _sum_usage(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """One usage-only chunk for several prompts: the first one's shape, the sums."""
    merged = dict(chunks[0])
    prompt = sum((c.get("usage") or {}).get("prompt_tokens") or 0 for c in chunks)
    completion = sum((c.get("usage") or {}).get("completion_tokens") or 0 for c in chunks)
    merged["usage"] = {
        **(chunks[0].get("usage") or {}),
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    return merged


async def completion_events(
    state: AppState, codec: StateCodec, call: CompletionCall, streams: EngineStreams
) -> AsyncGenerator[bytes, None]:
    """The client's SSE stream; choice `j` of prompt `i` is reported as index `i * n + j`.

    With several prompts the engines' usage-only chunks are held back and sent as one
    chunk with the summed usage at the end.
    """
    step = functools.partial(_derender_chunk, state, codec, call)
    held_usage: list[dict[str, Any]] = []
    several = len(call.bodies) > 1
    options = call.request.stream_options
    include_usage = bool(options and options.include_usage)
    try:
        try:
            async for prompt, chunk in derendered(streams, step):
                if "error" in chunk:
                    yield event(chunk)
                    continue
                chunk["id"] = call.response_id
                for choice in chunk["choices"]:
                    choice["index"] = prompt * call.n + choice["index"]
                if several and not chunk["choices"] and chunk.get("usage") is not None:
                    held_usage.append(chunk)
                elif worth_sending(chunk):
                    stamp_chunk(chunk, state.system_fingerprint, include_usage)
                    yield event(chunk)
            if held_usage and streams.finished:
                summed = _sum_usage(held_usage)
                stamp_chunk(summed, state.system_fingerprint, include_usage)
                yield event(summed)
        except APIError as exc:
            yield event(exc.body())
        yield DONE
    finally:
        streams.close_soon(abort=not streams.finished)
