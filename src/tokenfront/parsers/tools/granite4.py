"""Granite 4 tool calls: `<tool_call>{"name": ..., "arguments": {...}}</tool_call>` blocks.

Text outside the blocks is content. Streaming holds back a possible partial `<tool_call>` and
emits each call whole (name and arguments in one delta) once its closing tag arrives.
"""

from __future__ import annotations

import json
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
from tokenfront.parsers.engines.json_in_markers import partial_tag_overlap, serialized_arguments
from tokenfront.parsers.registry import tool_parser

START = "<tool_call>"
END = "</tool_call>"


def _dump_args(args: Any) -> str | None:
    if args is None:
        return args
    if isinstance(args, str):
        # vLLM's hermes/granite4 tests: a serialized object passes through, any other string
        # is serialized (0.33.0 passes every string verbatim); docs/deviations.md.
        return serialized_arguments(args)
    return dumps(args)


def _partial_start(text: str) -> int:
    """Where a trailing prefix of START begins in `text` (-1 if none)."""
    k = partial_tag_overlap(text, START)
    return len(text) - k if k else -1


@tool_parser("granite4")
class Granite4ToolParser(JsonToolParser):
    name = "granite4"

    def _collect(self, state: JSONState, segments: list[str]) -> list[tuple[str, str | None]]:
        calls = []
        for segment in segments:
            obj = json.loads(segment)
            if not isinstance(obj, dict):
                raise TypeError(obj)
            state["prev"].append(obj)
            name = obj["name"]
            if not isinstance(name, str):
                raise TypeError(name)
            calls.append((name, _dump_args(obj["arguments"])))
        return calls

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        scratch: JSONState = {"prev": []}
        texts: list[str] = []
        segments: list[str] = []
        in_call = False
        cut = 0
        try:
            pos = 0
            while True:
                a, b = text.find(START, pos), text.find(END, pos)
                if a == -1 and b == -1:
                    break
                if a != -1 and (b == -1 or a < b):
                    if in_call:
                        raise ValueError("two tool call starts in a row")
                    if text[cut:a]:
                        texts.append(text[cut:a])
                    in_call = True
                    cut = pos = a + len(START)
                else:
                    if not in_call:
                        raise ValueError("tool call end without a start")
                    if not text[cut:b]:
                        raise ValueError("empty tool call")
                    segments.append(text[cut:b])
                    in_call = False
                    cut = pos = b + len(END)
            if in_call:
                raise ValueError("incomplete tool call")
            if text[cut:]:
                texts.append(text[cut:])
            calls = self._collect(scratch, segments)
            if any(args is None for _name, args in calls):
                raise TypeError("arguments must be a string")
        except Exception:
            return no_calls(text)
        return ExtractedToolCalls(
            tools_called=bool(calls),
            tool_calls=[
                ToolCall(name=name, arguments=args or "", id=random_tool_call_id())
                for name, args in calls
            ],
            content="".join(texts) or None,
        )

    def initial_state(self) -> JSONState:
        state = super().initial_state()
        state.update(look_ahead="", in_call=False)
        return state

    def _extraction_step(self, state: JSONState, text: str) -> tuple[bool, str, str]:
        start = text.find(START)
        partial = -1 if start != -1 else _partial_start(text)
        end = text.find(END)
        if start == -1:
            if partial != -1:
                state["look_ahead"] = text[partial:]
                return True, text[:partial], ""
            return True, text, ""
        if not state["in_call"]:
            state["in_call"] = True
            if end > 0:
                if end > start:
                    # a whole call in one chunk: the text after it is outside any call (vLLM
                    # stays "in a call" there and drops the content before the next one)
                    state["in_call"] = False
                state["look_ahead"] = text[end + len(END) :]
                return False, text[:start], text[start + len(START) : end]
            state["look_ahead"] = text[start:]
            return True, text[:start], ""
        if end < 0:
            state["look_ahead"] = text
            return True, "", ""
        state["in_call"] = False
        state["look_ahead"] = text[end + len(END) :]
        return False, "", text[start + len(START) : end]

    def step(
        self,
        state: JSONState,
        previous_text: str,
        current_text: str,
        delta_text: str,
        delta_ids: list[int],
    ) -> DeltaMessage | None:
        try:
            done = False
            texts: list[str] = []
            segments: list[str] = []
            while not done:
                delta_text = state["look_ahead"] + delta_text
                state["look_ahead"] = ""
                done, content, call_text = self._extraction_step(state, delta_text)
                if content:
                    texts.append(content)
                if call_text:
                    segments.append(call_text)
                delta_text = ""
            calls = self._collect(state, segments)
            deltas = []
            for name, args in calls:
                state["tool"] += 1
                deltas.append(
                    DeltaToolCall(index=state["tool"], id=random_tool_call_id(), type="function",
                                  name=name, arguments=args)
                )
                state["streamed"].append(args or "")
            joined = "".join(texts) or None
            if joined or deltas:
                return DeltaMessage(content=joined, tool_calls=deltas)
        except Exception:
            return None
        return None
