"""Streaming derender: one generate chunk (one choice) at a time, state carried by the client."""

from __future__ import annotations

import copy
import logging
import time
from typing import Any

from tokenfront.api.errors import APIError, bad_request
from tokenfront.config import ServerSettings
from tokenfront.derender import bounds
from tokenfront.derender.chat import PARSER_NEEDS_CHAT_REQUEST
from tokenfront.derender.common import finish_reason_for_chat
from tokenfront.derender.decode import DecodeParams, decode_params, seed
from tokenfront.derender.logprobs import (
    chat_top_limit,
    completion_top_limit,
    context_tail,
    resolve_logprobs,
    to_completion_logprobs,
)
from tokenfront.derender.parsing import build_parse_context, delta_to_wire
from tokenfront.derender.state import INVALID_STATE, StateCodec, StreamState
from tokenfront.derender.stops import drop_stop_token
from tokenfront.parsers.base import DeltaMessage, ParseContext
from tokenfront.protocol.generate import (
    DerenderChatStreamRequest,
    DerenderCompletionStreamRequest,
    GenerateTokensStreamChoice,
    GenerateTokensStreamResponse,
    dump_model,
)
from tokenfront.protocol.requests import ChatCompletionRequest
from tokenfront.tokenization.detokenizer import TokenizerView, detokenize_delta, tokenizer_view
from tokenfront.tokenization.registry import ServedModel

logger = logging.getLogger(__name__)

STOP_STRINGS_UNSUPPORTED = (
    "stop strings are not supported by streaming derender because text already sent cannot "
    "be cut. Use non-streaming derender or output_mode=text on /inference/v1/generate which "
    "holds stop strings back."
)
PARSER_NEEDS_PROMPT_IDS = (
    "prompt_token_ids is required when a tool or reasoning parser is configured. Without it "
    "parse_delta cannot tell whether the prompt left reasoning open (e.g. a chat template that "
    "pre-opens <think>) and would misclassify reasoning content as plain content."
)


def _load_state(codec: StateCodec, model: ServedModel, raw: Any, kind: str) -> StreamState | None:
    if raw is None:
        return None
    if isinstance(raw, str):
        return codec.decode(raw, StateCodec.binding(model, kind))
    return StreamState.of_vllm(raw)


def _usage(chunk: GenerateTokensStreamResponse, prompt_tokens: int | None) -> dict[str, Any] | None:
    if chunk.usage is None:
        return None
    pt = prompt_tokens if prompt_tokens is not None else (chunk.usage.prompt_tokens or 0)
    ct = chunk.usage.completion_tokens or 0
    return {
        "prompt_tokens": pt,
        "total_tokens": pt + ct,
        "completion_tokens": ct,
        "prompt_tokens_details": None,
        "completion_tokens_details": None,
    }


def _drop(
    model: ServedModel, choice: GenerateTokensStreamChoice, request: Any | None
) -> tuple[list[int], list[int], int | str | None]:
    delta_ids = choice.token_ids or []
    text_ids, stop_reason = drop_stop_token(
        delta_ids,
        choice.finish_reason,
        choice.stop_reason,
        request,
        model.eos_token_id,
        model.model_eos_token_ids,
    )
    return delta_ids, text_ids, stop_reason


# ----------------------------------------------------------------------------- chat


def _check_chat(model: ServedModel, request: DerenderChatStreamRequest, prior_tokens: int) -> None:
    chat_request = request.chat_request
    if chat_request is not None and chat_request.stop:
        raise bad_request(STOP_STRINGS_UNSUPPORTED)
    if model.parser is not None and chat_request is None:
        raise bad_request(PARSER_NEEDS_CHAT_REQUEST)
    if model.parser is not None and request.prompt_token_ids is None:
        raise bad_request(PARSER_NEEDS_PROMPT_IDS)
    chunk = request.generate_chunk
    if len(chunk.choices) > 1:
        raise bad_request(
            f"derender_chat_stream expects at most one choice per chunk (got {len(chunk.choices)})."
        )
    prompt_len = len(request.prompt_token_ids) if request.prompt_token_ids is not None else 0
    delta_len = sum(len(c.token_ids) for c in chunk.choices if c.token_ids)
    if prompt_len + prior_tokens + delta_len > model.max_model_len:
        raise bad_request(
            f"prompt_token_ids length ({prompt_len}) plus output_token_ids length "
            f"({prior_tokens}) plus delta ({delta_len}) exceeds max_model_len "
            f"({model.max_model_len})."
        )


def derender_chat_chunk(
    model: ServedModel,
    request: DerenderChatStreamRequest,
    settings: ServerSettings,
    codec: StateCodec,
) -> dict[str, Any]:
    """`{"chunk": chat.completion.chunk, "stream_state": ...}` for one generate chunk."""
    chat_request = request.chat_request
    state = _load_state(codec, model, request.stream_state, "chat")
    prior = 0
    if state is not None and (model.parser is not None or state.from_vllm):
        prior = state.output_tokens
    _check_chat(model, request, prior)
    model_name = request.model or model.name
    try:
        if model.parser is not None:
            assert chat_request is not None
            choices, state = _chat_parsed(model, request, chat_request, state)
        else:
            choices, state = _chat_plain(model, request, state)
    except APIError:
        raise
    except Exception as exc:
        # Like vLLM: a failure while replaying client-carried state is the client's 400.
        logger.debug("derender stream failed: %s: %s", type(exc).__name__, exc)
        raise bad_request(f"{INVALID_STATE}: derender failed") from None
    chunk = request.generate_chunk
    body = {
        "id": chunk.request_id,
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model_name,
        "choices": choices,
        "usage": _usage(chunk, request.prompt_tokens),
        "system_fingerprint": None,
        "prompt_token_ids": (
            chunk.prompt_token_ids
            if chat_request is not None and chat_request.return_token_ids
            else None
        ),
        "prompt_text": None,
        "metrics": dump_model(chunk.metrics),
        "kv_transfer_params": None,
    }
    return {"chunk": body, "stream_state": codec.encode(state, StateCodec.binding(model, "chat"))}


def _chat_plain(
    model: ServedModel, request: DerenderChatStreamRequest, state: StreamState | None
) -> tuple[list[dict[str, Any]], StreamState]:
    chat_request = request.chat_request
    view = tokenizer_view(model.tokenizer)
    params = decode_params(view, chat_request)
    chunk = request.generate_chunk
    if state is None:
        seed_ids = (
            request.prompt_token_ids
            if request.prompt_token_ids is not None
            else chunk.prompt_token_ids
        )
        state = StreamState(window=seed(view, seed_ids, params))
    return_token_ids = bool(chat_request is not None and chat_request.return_token_ids)
    top_limit = chat_top_limit(chat_request)
    choices: list[dict[str, Any]] = []
    for choice in chunk.choices:
        delta_ids, text_ids, stop_reason = _drop(model, choice, chat_request)
        text, window = detokenize_delta(
            view,
            state.window,
            text_ids,
            params.skip_special_tokens,
            params.spaces_between_special_tokens,
        )
        logprobs = (
            resolve_logprobs(view, choice.logprobs, top_limit, state.logprob_context)
            if choice.logprobs is not None
            else None
        )
        include_role = not state.role_sent
        state.window = window
        state.role_sent = True
        state.logprob_context = context_tail(state.logprob_context, delta_ids)
        state.output_tokens += len(delta_ids)
        choices.append(
            {
                "index": choice.index,
                "delta": {
                    "role": "assistant" if include_role else None,
                    "content": text or None,
                    "reasoning": None,
                },
                "logprobs": logprobs,
                "finish_reason": choice.finish_reason,
                "stop_reason": stop_reason,
                "token_ids": choice.token_ids if return_token_ids else None,
                "weight_versions": None,
            }
        )
    return choices, state


def keeps_tool_calls(model: ServedModel, chat_request: ChatCompletionRequest) -> bool:
    """Whether a choice returns the tool calls its parser extracts (vLLM's rule)."""
    if chat_request.named_tool_choice is not None or chat_request.tool_choice == "required":
        return True
    auto_tools = model.options.enable_auto_tool_choice and bool(model.options.tool_call_parser)
    if not auto_tools or chat_request.tool_choice != "auto":
        return False
    return bool(chat_request.tools)


class _ChatStepper:
    """vLLM's per-choice stream processor, over the parser's serialisable state."""

    def __init__(
        self,
        model: ServedModel,
        view: TokenizerView,
        params: DecodeParams,
        chat_request: ChatCompletionRequest,
        ctx: ParseContext,
        state: StreamState,
    ) -> None:
        self.model = model
        self.view = view
        self.params = params
        self.chat_request = chat_request
        self.ctx = ctx
        self.state = state
        self.keep_tool_calls = keeps_tool_calls(model, chat_request)

    def decode(self, ids: list[int]) -> str:
        text, self.state.window = detokenize_delta(
            self.view,
            self.state.window,
            ids,
            self.params.skip_special_tokens,
            self.params.spaces_between_special_tokens,
        )
        return text

    def step(
        self, text: str, ids: list[int], finish_reason: str | None
    ) -> tuple[DeltaMessage | None, str | None]:
        state = self.state
        delta: DeltaMessage | None
        if not text and not ids and not state.output_tokens:
            delta = DeltaMessage()
        else:
            delta, state.parser_state = self.model.parser.stream(
                state.parser_state, text, ids, self.ctx, finished=finish_reason is not None
            )
            if delta is not None and delta.tool_calls:
                if self.keep_tool_calls:
                    state.tools_streamed = True
                else:
                    delta.tool_calls = []
                    if not delta.content and not delta.reasoning:
                        delta = None
        state.output_tokens += len(ids)
        if (
            delta is not None
            and self.chat_request.parallel_tool_calls is False
            and delta.tool_calls
        ):
            delta.tool_calls = [call for call in delta.tool_calls if call.index == 0]
        if finish_reason is not None:
            finish_reason = finish_reason_for_chat(
                finish_reason, self.chat_request, state.tools_streamed
            )
        return delta, finish_reason

    def replay(self, ids: list[int], chunk_lens: list[int]) -> None:
        """Rebuild parser state from a vLLM-style state's recorded chunks (output discarded)."""
        tools_streamed = self.state.tools_streamed
        start = 0
        self.state.output_tokens = 0
        for n in chunk_lens:
            piece = ids[start : start + n]
            start += n
            self.step(self.decode(piece), piece, None)
        self.state.tools_streamed = tools_streamed


def _chat_parsed(
    model: ServedModel,
    request: DerenderChatStreamRequest,
    chat_request: ChatCompletionRequest,
    state: StreamState | None,
) -> tuple[list[dict[str, Any]], StreamState]:
    view = tokenizer_view(model.tokenizer)
    params = decode_params(view, chat_request, preserve_special=True)
    prompt_ids = request.prompt_token_ids
    ctx = build_parse_context(model, chat_request, prompt_ids)
    from tokenfront.render.chat_params import parser_setup_error

    if parser_setup_error(model, ctx.chat_template_kwargs) is not None:
        raise bad_request(f"{INVALID_STATE}: derender failed")  # vLLM's answer to any parser failure
    if state is None or state.from_vllm:
        fresh_window = seed(view, prompt_ids, params)
        if state is None:
            state = StreamState(window=fresh_window)
        else:
            # vLLM's parser path decodes afresh from the prompt and replays the recorded chunks.
            state.window = fresh_window
            state.from_vllm = False
    stepper = _ChatStepper(model, view, params, chat_request, ctx, state)
    if state.replay_chunk_lens:
        replay_ids, replay_lens = state.replay_ids, state.replay_chunk_lens
        state.replay_ids, state.replay_chunk_lens = [], []
        stepper.replay(replay_ids, replay_lens)

    hide_metadata = not chat_request.include_reasoning
    return_token_ids = bool(chat_request.return_token_ids) and not hide_metadata
    top_limit = chat_top_limit(chat_request)
    chunk = request.generate_chunk
    choices: list[dict[str, Any]] = []
    if chunk.choices:
        choice = chunk.choices[0]
        delta_ids, text_ids, stop_reason = _drop(model, choice, chat_request)
        logprob_context = list(state.logprob_context)
        delta: DeltaMessage | None = None
        finish_reason: str | None = None
        if delta_ids or choice.finish_reason is not None:
            # vLLM rebuilds the next call's state by replaying the recorded chunks whole
            # and unfinished (an empty chunk is not recorded); when this call differs from
            # that replay, carry the replay's state rather than this call's.
            differs = choice.finish_reason is not None or len(text_ids) != len(delta_ids)
            before = copy.deepcopy(state) if differs else None
            text = stepper.decode(text_ids) if delta_ids else ""
            delta, finish_reason = stepper.step(text, delta_ids, choice.finish_reason)
            if before is not None:
                if delta_ids:
                    replay = _ChatStepper(model, view, params, chat_request, ctx, before)
                    replay.step(replay.decode(delta_ids), delta_ids, None)
                before.tools_streamed = state.tools_streamed
                state = before
        logprobs = (
            resolve_logprobs(view, choice.logprobs, top_limit, logprob_context)
            if choice.logprobs is not None and not hide_metadata
            else None
        )
        state.logprob_context = context_tail(logprob_context, delta_ids)
        if delta is None:
            delta = DeltaMessage()
        for call in delta.tool_calls:
            if call.id is None:
                continue
            if call.index < len(state.tool_call_ids):
                call.id = state.tool_call_ids[call.index]
            else:
                state.tool_call_ids.append(call.id)
        if not state.role_sent:
            delta.role = "assistant"
            state.role_sent = True
        choices.append(
            {
                "index": choice.index,
                "delta": delta_to_wire(delta),
                "logprobs": logprobs,
                "finish_reason": finish_reason,
                "stop_reason": stop_reason,
                "token_ids": choice.token_ids if return_token_ids else None,
                "weight_versions": None,
            }
        )
    return choices, state


# ----------------------------------------------------------------------------- completion


def derender_completion_chunk(
    model: ServedModel,
    request: DerenderCompletionStreamRequest,
    settings: ServerSettings,
    codec: StateCodec,
) -> dict[str, Any]:
    """`{"chunk": text_completion chunk, "stream_state": ...}` for one generate chunk."""
    completion_request = request.completion_request
    if completion_request is not None and completion_request.stop:
        raise bad_request(STOP_STRINGS_UNSUPPORTED)
    bounds.check_prompt_ids_length([request.prompt_token_ids], model.max_model_len)
    chunk = request.generate_chunk
    if len(chunk.choices) > 1:
        raise bad_request("derender_completion_stream expects at most one choice per chunk")
    state = _load_state(codec, model, request.stream_state, "completion")
    for choice in chunk.choices:
        if choice.token_ids and len(choice.token_ids) > model.max_model_len:
            raise bad_request(
                f"token_ids length ({len(choice.token_ids)}) in choice {choice.index} "
                f"exceeds max_model_len ({model.max_model_len})."
            )
        bounds.check_logprobs_bounds(choice.logprobs, choice.index, model.max_model_len, -1)

    view = tokenizer_view(model.tokenizer)
    params = decode_params(view, completion_request)
    if state is None:
        seed_ids = (
            request.prompt_token_ids
            if request.prompt_token_ids is not None
            else chunk.prompt_token_ids
        )
        state = StreamState(window=seed(view, seed_ids, params))
    top_limit = completion_top_limit(completion_request)
    return_token_ids = bool(completion_request is not None and completion_request.return_token_ids)
    choices: list[dict[str, Any]] = []
    for choice in chunk.choices:
        delta_ids, text_ids, stop_reason = _drop(model, choice, completion_request)
        text, window = detokenize_delta(
            view,
            state.window,
            text_ids,
            params.skip_special_tokens,
            params.spaces_between_special_tokens,
        )
        logprobs = None
        if choice.logprobs is not None:
            resolved = resolve_logprobs(view, choice.logprobs, top_limit, state.logprob_context)
            logprobs = to_completion_logprobs(resolved, choice.logprobs, state.logprob_text_offset)
        next_offset = state.logprob_text_offset + len(text)
        if logprobs is not None and logprobs["tokens"]:
            next_offset = logprobs["text_offset"][-1] + len(logprobs["tokens"][-1])
        state.window = window
        state.logprob_context = context_tail(state.logprob_context, delta_ids)
        state.logprob_text_offset = next_offset
        state.output_tokens += len(delta_ids)
        choices.append(
            {
                "index": choice.index,
                "text": text,
                "logprobs": logprobs,
                "finish_reason": choice.finish_reason,
                "stop_reason": stop_reason,
                "prompt_token_ids": chunk.prompt_token_ids if return_token_ids else None,
                "token_ids": choice.token_ids if return_token_ids else None,
                "weight_versions": None,
            }
        )
    body = {
        "id": chunk.request_id,
        "object": "text_completion",
        "created": int(time.time()),
        "model": request.model or model.name,
        "choices": choices,
        "usage": _usage(chunk, request.prompt_tokens),
        "system_fingerprint": None,
        "metrics": dump_model(chunk.metrics),
        "kv_transfer_params": None,
    }
    return {
        "chunk": body,
        "stream_state": codec.encode(state, StateCodec.binding(model, "completion")),
    }
