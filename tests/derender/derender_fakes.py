"""A tiny stand-in for the chat output parser: `<r>...</r>` is reasoning, `CALL name` a tool call."""

from __future__ import annotations

import dataclasses
from typing import Any

from tokenfront.parsers.base import DeltaMessage, DeltaToolCall, ParseContext
from tokenfront.tokenization.registry import ServedModel


class FakeParser:
    def __init__(self) -> None:
        self.contexts: list[ParseContext] = []

    def parse(self, text: str, token_ids: Any, ctx: ParseContext) -> dict[str, Any]:
        self.contexts.append(ctx)
        reasoning = None
        if text.startswith("<r>") and "</r>" in text:
            reasoning, text = text[3:].split("</r>", 1)
        tool_calls = []
        if text.startswith("CALL "):
            name = text[5:].strip()
            tool_calls = [
                {"id": "call-1", "type": "function", "function": {"name": name, "arguments": "{}"}}
            ]
            text = None
        if not ctx.include_reasoning:
            reasoning = None
        return {
            "role": "assistant",
            "content": text,
            "reasoning": reasoning,
            "tool_calls": tool_calls,
        }

    def stream(
        self,
        state: dict[str, Any] | None,
        delta_text: str,
        delta_ids: Any,
        ctx: ParseContext,
        *,
        finished: bool,
    ) -> tuple[DeltaMessage | None, dict[str, Any]]:
        self.contexts.append(ctx)
        state = dict(state or {"seen": "", "calls": 0})
        state["seen"] += delta_text
        if delta_text.startswith("CALL"):
            state["calls"] += 1
            call = DeltaToolCall(index=0, id="call-x", name="f", arguments="{}", type="function")
            return DeltaMessage(tool_calls=[call]), state
        if not delta_text:
            return None, state
        return DeltaMessage(content=delta_text), state


def with_parser(model: ServedModel, **options: Any) -> ServedModel:
    opts = dataclasses.replace(
        model.options, tool_call_parser="fake", enable_auto_tool_choice=True, **options
    )
    return dataclasses.replace(model, options=opts, parser=FakeParser())
