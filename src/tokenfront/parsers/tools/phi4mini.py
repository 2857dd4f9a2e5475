"""Phi-4-mini JSON tool calls: `functools[{"name": ..., "arguments": {...}}, ...]`.

One-shot parsing follows vLLM 0.33.0 (`functools[` up to the first `]`, content dropped when
calls are found), except that a call list holding nested arrays is read whole. vLLM 0.33.0 has
no streaming for this format (it emits nothing at all); tokenfront streams it, as vLLM's
tests/tool_parsers/test_phi4mini_tool_parser.py asserts (docs/deviations.md): text around the
list is content, each call is sent (id, name and arguments) once its JSON object is complete.
"""

from __future__ import annotations

import json
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
from tokenfront.parsers.engines.json_calls import JsonToolParser, dumps, no_calls
from tokenfront.parsers.engines.lazy_blocks import lazy_blocks
from tokenfront.parsers.registry import tool_parser

MARKER = "functools["
_DECODER = json.JSONDecoder()


def _calls_span(text: str) -> tuple[int, int] | None:
    """Where vLLM's lazy `functools[...]` pattern (DOTALL) first matches: the marker's start
    and the offset of the first `]` after it."""
    span = next(lazy_blocks(text, MARKER, "]"), None)
    return None if span is None else (span[0], span[1] - 1)


def _call_list(text: str, span: tuple[int, int]) -> list[Any]:
    """The calls of `functools[...]`: the first `]` ends the list (vLLM), else the whole list
    read as JSON from its `[` (nested arrays; test_various_data_types[False])."""
    start, end = span
    try:
        return json.loads("[" + text[start + len(MARKER) : end] + "]")
    except json.JSONDecodeError:
        pass
    try:
        calls, _ = _DECODER.raw_decode(text, start + len(MARKER) - 1)
    except json.JSONDecodeError:
        # vLLM logs the error and reports a tool call with no calls (and no content).
        return []
    return calls if isinstance(calls, list) else []


def _call_of(raw: Any) -> tuple[str, str] | None:
    """(name, arguments JSON) of one decoded call object, or None when it is not a call."""
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
        return None
    if "arguments" in raw:
        return raw["name"], dumps(raw["arguments"])
    if "parameters" in raw:
        return raw["name"], dumps(raw["parameters"])
    return None


def _held_prefix(text: str) -> int:
    """Length of the longest tail of `text` that may still grow into the marker."""
    for size in range(min(len(MARKER) - 1, len(text)), 0, -1):
        if MARKER.startswith(text[-size:]):
            return size
    return 0


@tool_parser("phi4_mini_json")
class Phi4MiniJsonToolParser(JsonToolParser):
    name = "phi4_mini_json"

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        span = _calls_span(text)
        if span is None:
            return no_calls(text)
        try:
            calls = []
            for raw in _call_list(text, span):
                args = raw["arguments"] if "arguments" in raw else raw["parameters"]
                name = raw["name"]
                if not isinstance(name, str):
                    raise TypeError(name)
                calls.append(ToolCall(name=name, arguments=dumps(args), id=random_tool_call_id()))
        except Exception:
            return no_calls(text)
        return ExtractedToolCalls(tools_called=True, tool_calls=calls, content=None)

    # ---- streaming --------------------------------------------------------------------------
    def initial_state(self) -> JSONState:
        # phase: "content" (before the list), "calls" (inside it), "after" (text after it)
        return {"text": "", "pos": 0, "phase": "content", "calls": 0}

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> DeltaMessage | None:
        if not state:
            state.update(self.initial_state())
        state["text"] += delta_text
        content = ""
        calls: list[DeltaToolCall] = []
        text: str = state["text"]
        while state["pos"] < len(text):
            pos = state["pos"]
            if state["phase"] == "after":
                content += text[pos:]
                state["pos"] = len(text)
            elif state["phase"] == "content":
                at = text.find(MARKER, pos)
                if at == -1:
                    end = len(text) - _held_prefix(text[pos:])
                    content += text[pos:end]
                    state["pos"] = end
                    break
                content += text[pos:at]
                state["mark"] = at
                state["pos"] = at + len(MARKER)
                state["phase"] = "calls"
            elif not self._next_call(state, text, calls):
                break
        if not content and not calls:
            return None
        return DeltaMessage(content=content or None, tool_calls=calls)

    def _next_call(self, state: JSONState, text: str, out: list[DeltaToolCall]) -> bool:
        """Consume one element of the call list; False when it is not complete yet."""
        pos = state["pos"]
        while pos < len(text) and (text[pos].isspace() or text[pos] == ","):
            pos += 1
        state["pos"] = pos
        if pos >= len(text):
            return False
        if text[pos] == "]":
            state["pos"] = pos + 1
            state["phase"] = "after"
            return True
        try:
            raw, end = _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError:
            return False
        state["pos"] = end
        call = _call_of(raw)
        if call is not None:
            index = state["calls"]
            state["calls"] = index + 1
            out.append(
                DeltaToolCall(
                    index=index,
                    id=random_tool_call_id(),
                    type="function",
                    name=call[0],
                    arguments=call[1],
                )
            )
        return True

    def finish(self, state: JSONState) -> DeltaMessage | None:
        """Held text at the end of the stream: a marker prefix, or a list that never
        produced a call, is content after all."""
        text: str = state.get("text", "")
        pos = state.get("pos", 0)
        if state.get("phase") == "calls":
            if state.get("calls"):
                return None
            pos = state.get("mark", pos)
        if pos >= len(text):
            return None
        state["pos"] = len(text)
        return DeltaMessage(content=text[pos:])

    def remaining_args(self, state: JSONState) -> str:
        return ""
