"""Chat template kwargs and other per-request chat facts, computed the way vLLM does."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tokenfront.api.errors import APIError
from tokenfront.protocol.requests import ChatCompletionRequest
from tokenfront.tokenization.registry import ServedModel

_UNSET = (None, "auto")


def merge_kwargs(defaults: dict[str, Any] | None, overrides: dict[str, Any] | None) -> dict[str, Any]:
    """`defaults` updated with the `overrides` that are set (not None / "auto")."""
    merged = dict(defaults or {})
    for key, value in (overrides or {}).items():
        if value is None or (isinstance(value, str) and value == "auto"):
            continue
        merged[key] = value
    return merged


def template_tools(model: ServedModel, request: ChatCompletionRequest) -> list[dict[str, Any]] | None:
    """The tools the prompt shows: none for tool_choice "none" under
    `--exclude-tools-when-tool-choice-none` (the parse context still gets the request's)."""
    if request.tool_choice == "none" and model.options.exclude_tools_when_tool_choice_none:
        return None
    return request.tool_dicts()


def default_template_kwargs(model: ServedModel) -> dict[str, Any]:
    """`--default-chat-template-kwargs` plus `--cohere-format` (vLLM adds it to every model's
    defaults, "cmd4" unless set; an empty value adds none)."""
    kwargs = dict(model.options.default_chat_template_kwargs or {})
    if model.options.cohere_format:
        kwargs.setdefault("cohere_format", model.options.cohere_format)
    return kwargs


def request_template_kwargs(
    request: ChatCompletionRequest, effort_map: dict[str, str] | None = None
) -> dict[str, Any]:
    """The request's own kwargs with the request-level switches applied on top
    (`reasoning_effort` rewritten by `--reasoning-effort-map`)."""
    effort: str | None = request.reasoning_effort
    if effort is not None and effort_map:
        effort = effort_map.get(effort, effort)
    extra: dict[str, Any] = {
        "add_generation_prompt": request.add_generation_prompt,
        "continue_final_message": request.continue_final_message,
        "documents": request.documents,
        "reasoning_effort": effort,
    }
    user_kwargs = request.chat_template_kwargs or {}
    if effort is not None and "enable_thinking" not in user_kwargs:
        extra["enable_thinking"] = effort != "none"
    return merge_kwargs(request.chat_template_kwargs, extra)


def resolve_chat_template_kwargs(model: ServedModel, request: ChatCompletionRequest) -> dict[str, Any]:
    """The kwargs vLLM puts into `parse_context.chat_template_kwargs` (defaults applied)."""
    effort_map = model.options.reasoning_effort_map
    return merge_kwargs(default_template_kwargs(model), request_template_kwargs(request, effort_map))


def parser_setup_error(model: ServedModel, chat_template_kwargs: dict[str, Any]) -> str | None:
    """Why vLLM could not build the configured parsers for these kwargs (None: it could)."""
    setup_error = getattr(model.parser, "setup_error", None)
    return setup_error(chat_template_kwargs) if setup_error is not None else None


def check_parser_setup(model: ServedModel, chat_template_kwargs: dict[str, Any]) -> None:
    """The 400 vLLM answers when the configured parsers cannot be built for these kwargs."""
    message = parser_setup_error(model, chat_template_kwargs)
    if message is not None:
        raise APIError(message)


def _count_tool_calls(tool_calls: object) -> int:
    if tool_calls is None:
        return 0
    if isinstance(tool_calls, (str, bytes, dict)):
        return 1
    if isinstance(tool_calls, Iterable):
        return sum(1 for _ in tool_calls)
    return 1


def history_tool_call_count(request: ChatCompletionRequest) -> int:
    """Tool calls already made by the assistant in the conversation."""
    return sum(
        _count_tool_calls(msg.get("tool_calls"))
        for msg in request.messages
        if isinstance(msg, dict) and msg.get("role") == "assistant"
    )
