"""Chat rendering with `--tokenizer-mode mistral`: mistral-common encodes the request itself.

vLLM skips the Jinja template in this mode: the OpenAI messages and tools go to
mistral-common's chat request encoding (system prompts, tool definitions, tool calls and
tool results become its own control tokens).  Before that it shortens tool-call ids to
their last 9 characters and refuses per-request templates; mistral-common's own
validation errors are 400s.
"""

from __future__ import annotations

import copy
from typing import Any

from tokenfront.api.errors import APIError
from tokenfront.protocol.requests import ChatCompletionRequest, RequestValidationFailure
from tokenfront.render.chat_params import template_tools
from tokenfront.tokenization.mistral import MistralModeTokenizer, is_mistral_tokenizer

__all__ = [
    "check_mistral_request",
    "encode_mistral_chat",
    "is_mistral_tokenizer",
    "render_mistral_prompt",
]

_MAX_TOOL_CALL_ID = 9
_REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")


def check_mistral_request(request: ChatCompletionRequest) -> None:
    """vLLM's `validate_request_params` for Mistral tokenizers."""
    if request.chat_template is not None or request.chat_template_kwargs is not None:
        raise RequestValidationFailure(
            "chat_template is not supported for Mistral tokenizers.", parameter="chat_template"
        )
    effort = request.reasoning_effort
    if effort and effort not in _REASONING_EFFORTS:
        raise RequestValidationFailure(
            f"reasoning_effort={effort} is not supported by Mistral models. Supported values "
            f"are: {list(_REASONING_EFFORTS)}.",
            parameter="reasoning_effort",
        )


def truncate_tool_call_ids(messages: list[dict[str, Any]]) -> None:
    """Keep the last 9 characters of assistant tool-call ids and tool-result ids."""
    for message in messages:
        role = message.get("role")
        if role == "assistant":
            for call in message.get("tool_calls") or ():
                if isinstance(call, dict) and isinstance(call.get("id"), str):
                    call["id"] = call["id"][-_MAX_TOOL_CALL_ID:]
        elif role in ("tool", "tool_results"):
            call_id = message.get("tool_call_id")
            if isinstance(call_id, str):
                message["tool_call_id"] = call_id[-_MAX_TOOL_CALL_ID:]


def _check_generation_args(
    messages: list[dict[str, Any]], add_generation_prompt: bool, continue_final_message: bool
) -> None:
    if add_generation_prompt and continue_final_message:
        raise APIError(
            "Cannot set both `add_generation_prompt` and `continue_final_message` to True."
        )
    if not messages:
        raise APIError("list index out of range")
    last = messages[-1]
    role = last.get("role") if isinstance(last, dict) else None
    if add_generation_prompt and role == "assistant":
        raise APIError(
            "Cannot set `add_generation_prompt` to True when the last message is from the "
            "assistant. Consider using `continue_final_message` instead."
        )
    if continue_final_message and role != "assistant":
        raise APIError(
            "Cannot set `continue_final_message` to True when the last message is not from "
            "the assistant."
        )


def encode_mistral_chat(
    tokenizer: MistralModeTokenizer,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None,
    *,
    add_generation_prompt: bool,
    continue_final_message: bool,
) -> list[int]:
    """mistral-common's encoding of a conversation; its complaints become 400s."""
    _check_generation_args(messages, add_generation_prompt, continue_final_message)
    try:
        ids = tokenizer.backend.apply_chat_template(
            conversation=messages,
            tools=tools,
            continue_final_message=continue_final_message,
            tokenize=True,
            padding=False,
            truncation=False,
            max_length=None,
            return_tensors=None,
            return_dict=False,
        )
    except APIError:
        raise
    except Exception as exc:  # mistral-common validation (assertions, its own exceptions)
        raise APIError(str(exc)) from exc
    return [int(i) for i in ids]


def render_mistral_prompt(model: Any, request: ChatCompletionRequest) -> list[int]:
    """The prompt ids of a chat request (before truncation and length checks)."""
    messages = copy.deepcopy([m for m in request.messages])
    truncate_tool_call_ids(messages)
    return encode_mistral_chat(
        model.tokenizer,
        messages,
        template_tools(model, request),
        add_generation_prompt=bool(request.add_generation_prompt),
        continue_final_message=bool(request.continue_final_message),
    )


def tokenize_mistral_chat(
    model: Any,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None,
    add_generation_prompt: bool,
    continue_final_message: bool,
) -> list[int]:
    """/tokenize of chat messages: vLLM does not re-serialise tool calls on this path."""
    for message in messages:
        if isinstance(message, dict) and message.get("role") == "assistant":
            if message.get("tool_calls") is not None:
                raise APIError(
                    "tool_calls must be a list, got "
                    "<class 'pydantic_core._pydantic_core.ValidatorIterator'>"
                )
    return encode_mistral_chat(
        model.tokenizer,
        copy.deepcopy(messages),
        tools,
        add_generation_prompt=add_generation_prompt,
        continue_final_message=continue_final_message,
    )
