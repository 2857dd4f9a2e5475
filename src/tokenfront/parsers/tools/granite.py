"""Granite 3.x tool calls: a JSON array after `<|tool_call|>` (3.0, a token) or `<tool_call>` (3.1).

`<|tool_call|>[{"name": "get_weather", "arguments": {"city": "SF"}}]` — no closing marker, the
array's `]` ends the calls and surrounding text is content. vLLM runs this format on its
declarative engine, so it is marked engine based (tool_choice "none" still strips the markup).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from tokenfront.parsers.base import (
    DeltaMessage,
    ExtractedToolCalls,
    JSONState,
    ToolParser,
)
from tokenfront.parsers.engines.json_array import ArrayCallsEngine, ArrayCallsSpec, new_state
from tokenfront.parsers.registry import tool_parser

GRANITE = ArrayCallsSpec(
    name="granite", id_markers=("<|tool_call|>",), text_markers=("<tool_call>",)
)


@tool_parser("granite")
class GraniteToolParser(ToolParser):
    name = "granite"
    engine_based: ClassVar[bool] = True

    def __init__(self, tokenizer: Any, ctx: Any) -> None:
        super().__init__(tokenizer, ctx)
        self.engine = ArrayCallsEngine(GRANITE, tokenizer, ctx.tools)

    def _suppressed(self) -> bool:
        return self.ctx.tool_choice == "none" and bool(self.ctx.tools)

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        return self.engine.extract(text, suppress=self._suppressed())

    def initial_state(self) -> JSONState:
        state = new_state()
        state["suppress"] = self._suppressed()
        return state

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> DeltaMessage | None:
        if not state:
            state.update(self.initial_state())
        return self.engine.to_delta(state, self.engine.feed(state, delta_text, list(delta_ids)))

    def finish(self, state: JSONState) -> DeltaMessage | None:
        """End of stream: what the engine still holds (open call, held text)."""
        if not state:
            return None
        events = self.engine.finish(state)
        if events or state["deferred"]:
            return self.engine.to_delta(state, events, finished=True)
        return None
