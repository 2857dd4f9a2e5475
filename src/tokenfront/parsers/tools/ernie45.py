"""ERNIE 4.5 tool calls: `<tool_call>\n{"name": ..., "arguments": {...}}\n</tool_call>` blocks.

Streaming buffers from `<tool_call>` and emits each call whole (name and arguments in one
delta) once its `</tool_call>` arrives; text outside calls is content, with the `<response>`
wrapper and the newlines after `</think>` / `<response>` / `</response>` removed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from tokenfront.parsers.base import (
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCalls,
    JSONState,
    ToolCall,
    random_tool_call_id,
)
from tokenfront.parsers.engines.chunk_pieces import merge_deltas
from tokenfront.parsers.engines.json_calls import JsonToolParser, dumps, no_calls
from tokenfront.parsers.registry import tool_parser

START = "<tool_call>"
END = "</tool_call>"
THINK_END = "</think>"
RESPONSE_START = "<response>"
RESPONSE_END = "</response>"
NEWLINE_TOKEN = "<0x0A>"
_CALL_END = re.compile(r"\}\s*</tool_call>")


def _call_bodies(text: str) -> list[str]:
    """vLLM's `<tool_call>\\s*(\\{.*?\\})\\s*</tool_call>` (DOTALL) `findall`: at each marker
    followed by `{`, the JSON text up to the first `}` that a `</tool_call>` follows. When no
    such end follows one marker's `{`, none follows a later one's (the pattern itself would
    read on to the end from every such marker)."""
    bodies: list[str] = []
    pos = 0
    while (at := text.find(START, pos)) != -1:
        brace = at + len(START)
        while brace < len(text) and text[brace].isspace():
            brace += 1
        if not text.startswith("{", brace):
            pos = at + 1
            continue
        end = _CALL_END.search(text, brace + 1)
        if end is None:
            break
        bodies.append(text[brace : end.start() + 1])
        pos = end.end()
    return bodies


@tool_parser("ernie45")
class Ernie45ToolParser(JsonToolParser):
    name = "ernie45"

    def __init__(self, tokenizer: Any, ctx: Any) -> None:
        super().__init__(tokenizer, ctx)
        self.response_start_id = self.vocab_id(RESPONSE_START)
        self.response_end_id = self.vocab_id(RESPONSE_END)
        self.newline_id = self.vocab_id(NEWLINE_TOKEN)
        self.marker_ids = [self.vocab_id(THINK_END), self.response_start_id, self.response_end_id]

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        if START not in text:
            return no_calls(text)
        try:
            calls = []
            for body in _call_bodies(text):
                obj = json.loads(body)
                name = obj.get("name", "")
                if not isinstance(name, str):
                    raise TypeError(name)
                calls.append(
                    ToolCall(
                        name=name,
                        arguments=dumps(obj.get("arguments", {})),
                        id=random_tool_call_id(),
                    )
                )
        except Exception:
            return no_calls(text)
        content = text[: text.find(START)].rstrip("\n")
        return ExtractedToolCalls(tools_called=True, tool_calls=calls, content=content or None)

    def initial_state(self) -> JSONState:
        state = super().initial_state()
        state["buffer"] = ""
        return state

    def step(
        self,
        state: JSONState,
        previous_text: str,
        current_text: str,
        delta_text: str,
        delta_ids: list[int],
    ) -> DeltaMessage | None:
        text = state["buffer"] + delta_text
        state["buffer"] = text
        start = text.find(START)
        if start == -1:
            return self._content(state, text, delta_ids)
        end = text.find(END)
        if end != -1:
            tool = state["tool"]
            if tool == -1:
                tool = state["tool"] = 0
                state["prev"] = []
                state["streamed"] = []
            while len(state["prev"]) <= tool:
                state["prev"].append({})
            while len(state["streamed"]) <= tool:
                state["streamed"].append("")
            found = self.extract_tool_calls(text[: end + len(END)])
            if not found.tool_calls:
                return None
            call = found.tool_calls[0]
            state["prev"][tool] = {"name": call.name, "arguments": json.loads(call.arguments)}
            state["streamed"][tool] = call.arguments
            state["tool"] = tool + 1
            rest = state["buffer"] = text[end + len(END) :]
            delta = DeltaMessage(
                content=found.content,
                tool_calls=[
                    DeltaToolCall(
                        index=tool,
                        id=call.id or random_tool_call_id(),
                        type="function",
                        name=call.name,
                        arguments=call.arguments,
                    )
                ],
            )
            at = rest.find(START)
            if at != -1 and rest.find(END, at) != -1:
                # the chunk holds the next whole call too (vLLM takes one call per chunk)
                return merge_deltas([delta, self.step(state, "", "", "", [])])
            return delta
        state["buffer"] = text[start:]
        content = text[:start].rstrip("\n")
        return DeltaMessage(content=content or None)

    def _content(self, state: JSONState, text: str, delta_ids: list[int]) -> DeltaMessage:
        state["buffer"] = ""
        if state["tool"] > 0:
            text = ""
        # vLLM checks that every earlier id is the newline token (true before any output).
        if state["tool"] == -1 and state.get("all_newlines", True):
            text = text.strip("\n")
        content = text
        if self.response_start_id in delta_ids:
            content = content.lstrip("\n")
            at = content.find(RESPONSE_START)
            content = content[at + len(RESPONSE_START) :]
            end = content.rfind(RESPONSE_END)
            if end != -1:
                content = content[:end]
        elif self.response_end_id in delta_ids:
            content = content[: content.rfind(RESPONSE_END)]
        if (
            state["n_ids"] > 0
            and state["last_id"] in self.marker_ids
            and delta_ids
            and delta_ids[0] == self.newline_id
        ):
            content = content.lstrip("\n")
        return DeltaMessage(content=content or None)

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> DeltaMessage | None:
        # vLLM checks whether every earlier output id is the newline token (true before any).
        all_newlines = state.get("all_newlines", True)
        try:
            return super().stream(state, delta_text, delta_ids)
        finally:
            state["all_newlines"] = all_newlines and all(i == self.newline_id for i in delta_ids)
