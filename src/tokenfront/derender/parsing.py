"""The hook into the configured chat output parser (reasoning + tool calls)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tokenfront.parsers.base import DeltaMessage, ParseContext
from tokenfront.protocol.requests import ChatCompletionRequest
from tokenfront.tokenization.registry import ServedModel


def build_parse_context(
    model: ServedModel,
    chat_request: ChatCompletionRequest,
    prompt_token_ids: Sequence[int] | None,
) -> ParseContext:
    """What the parser may know about the request, as vLLM hands it over."""
    from tokenfront.render.chat_params import history_tool_call_count, resolve_chat_template_kwargs

    response_format = chat_request.response_format
    structured_outputs = chat_request.structured_outputs
    return ParseContext(
        tools=chat_request.tool_dicts(),
        tool_choice=chat_request.tool_choice_value(),
        parallel_tool_calls=chat_request.parallel_tool_calls is not False,
        include_reasoning=chat_request.include_reasoning,
        chat_template_kwargs=resolve_chat_template_kwargs(model, chat_request),
        history_tool_call_cnt=history_tool_call_count(chat_request),
        prompt_token_ids=list(prompt_token_ids) if prompt_token_ids is not None else None,
        enable_auto_tools=model.options.enable_auto_tool_choice,
        extra={
            "chat_request": chat_request,
            "skip_special_tokens": chat_request.skip_special_tokens,
            "response_format": (
                response_format.model_dump(mode="json", by_alias=True)
                if response_format is not None
                else None
            ),
            "structured_outputs": (
                structured_outputs.as_dict() if structured_outputs is not None else None
            ),
            "parallel_tool_calls_raw": chat_request.parallel_tool_calls,
        },
    )


def parse_message(
    model: ServedModel,
    text: str,
    token_ids: Sequence[int],
    ctx: ParseContext,
) -> dict[str, Any]:
    """The assistant message fields the parser extracts from one complete output."""
    from tokenfront.render.chat_params import check_parser_setup

    check_parser_setup(model, ctx.chat_template_kwargs)  # vLLM builds its parser per choice
    fields = model.parser.parse(text, token_ids, ctx)
    return dict(fields)


def delta_to_wire(delta: DeltaMessage) -> dict[str, Any]:
    """A parser `DeltaMessage` as vLLM serialises it (empty `tool_calls` omitted)."""
    out: dict[str, Any] = {
        "role": delta.role,
        "content": delta.content,
        "reasoning": delta.reasoning,
    }
    if delta.tool_calls:
        out["tool_calls"] = [call.to_dict() for call in delta.tool_calls]
    if delta.citations:
        out["citations"] = list(delta.citations)
    return out
