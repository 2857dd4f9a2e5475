"""Non-streaming chat derender: a complete generate response into a chat.completion."""

from __future__ import annotations

import time
from typing import Any

from tokenfront.api.errors import bad_request
from tokenfront.config import ServerSettings
from tokenfront.derender import bounds
from tokenfront.derender.common import finish_reason_for_chat, usage
from tokenfront.derender.decode import decode_output, decode_params, seed
from tokenfront.derender.logprobs import chat_top_limit, resolve_logprobs
from tokenfront.derender.parsing import build_parse_context, parse_message
from tokenfront.protocol.generate import DerenderChatRequest, dump_model, dump_prompt_logprobs
from tokenfront.tokenization.detokenizer import tokenizer_view
from tokenfront.tokenization.registry import ServedModel

PARSER_NEEDS_CHAT_REQUEST = (
    "chat_request is required when a tool or reasoning parser is configured because plain "
    "detokenization would leak raw parser markup into content."
)


def check_chat_request(
    model: ServedModel, request: DerenderChatRequest, settings: ServerSettings
) -> None:
    """Everything vLLM rejects before it decodes (bounds, missing `chat_request`)."""
    gen = request.generate_response
    bounds.check_response_bounds(
        [gen], settings.max_n_sequences, model.max_model_len, model.options.max_logprobs
    )
    bounds.check_prompt_ids_length([request.prompt_token_ids], model.max_model_len)
    if model.parser is not None and request.chat_request is None:
        raise bad_request(PARSER_NEEDS_CHAT_REQUEST)
    for choice in gen.choices:
        if not choice.token_ids:
            raise bad_request(f"choice {choice.index} has empty or null token_ids")


def assistant_message(
    content: str | None,
    reasoning: str | None = None,
    tool_calls: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A chat `message` with vLLM's keys (`tool_calls` only when there are some)."""
    message: dict[str, Any] = {
        "role": "assistant",
        "content": content,
        "refusal": None,
        "annotations": None,
        "audio": None,
        "function_call": None,
    }
    if tool_calls:
        message["tool_calls"] = tool_calls
    message["reasoning"] = reasoning
    return message


def derender_chat(
    model: ServedModel, request: DerenderChatRequest, settings: ServerSettings
) -> dict[str, Any]:
    """The chat.completion answer for one generate response (checks included)."""
    check_chat_request(model, request, settings)
    gen = request.generate_response
    chat_request = request.chat_request
    view = tokenizer_view(model.tokenizer)
    has_parser = model.parser is not None and chat_request is not None
    params = decode_params(view, chat_request, preserve_special=has_parser)
    seed_ids = (
        request.prompt_token_ids if request.prompt_token_ids is not None else gen.prompt_token_ids
    )
    window = seed(view, seed_ids, params)
    ctx = (
        build_parse_context(model, chat_request, gen.prompt_token_ids)
        if has_parser and chat_request is not None
        else None
    )
    hide_metadata = has_parser and chat_request is not None and not chat_request.include_reasoning
    return_token_ids = (
        bool(chat_request is not None and chat_request.return_token_ids) and not hide_metadata
    )
    top_limit = chat_top_limit(chat_request)

    choices: list[dict[str, Any]] = []
    completion_tokens = 0
    for choice in gen.choices:
        token_ids = choice.token_ids or []
        completion_tokens += len(token_ids)
        logprobs = (
            resolve_logprobs(view, choice.logprobs, top_limit)
            if choice.logprobs is not None and not hide_metadata
            else None
        )
        text, stop_reason = decode_output(
            model, token_ids, choice.finish_reason, choice.stop_reason, chat_request, window, params
        )
        if ctx is not None:
            fields = parse_message(model, text, token_ids, ctx)
            tool_calls = fields.get("tool_calls") or []
            message = assistant_message(fields.get("content"), fields.get("reasoning"), tool_calls)
        else:
            tool_calls = []
            message = assistant_message(text)
        choices.append(
            {
                "index": choice.index,
                "message": message,
                "logprobs": logprobs,
                "finish_reason": finish_reason_for_chat(
                    choice.finish_reason, chat_request, bool(tool_calls)
                ),
                "stop_reason": stop_reason,
                "token_ids": token_ids if return_token_ids else None,
                "routed_experts": None,
                "weight_versions": None,
            }
        )

    prompt_tokens = request.prompt_tokens if request.prompt_tokens is not None else 0
    return {
        "id": gen.request_id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.model or model.name,
        "choices": choices,
        "service_tier": None,
        "system_fingerprint": None,
        "usage": usage(prompt_tokens, completion_tokens),
        "prompt_logprobs": dump_prompt_logprobs(gen.prompt_logprobs),
        "prompt_token_ids": (
            gen.prompt_token_ids
            if chat_request is not None and chat_request.return_token_ids
            else None
        ),
        "prompt_text": None,
        "kv_transfer_params": gen.kv_transfer_params,
        "ec_transfer_params": None,
        "metrics": dump_model(gen.metrics),
    }
