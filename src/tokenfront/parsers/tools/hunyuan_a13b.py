"""Hunyuan-A13B tool calls: `<tool_calls>[{"name": ..., "arguments": {...}}, ...]</tool_calls>`.

One-shot parsing takes the first `<tool_calls>` block (outside `<think>`) whose body is valid
JSON; content is the text before it. Streaming treats output starting with `[` (after an optional
`<tool_calls>`) as calls and finds names and argument objects with regular expressions.
"""

from __future__ import annotations

import json
import re
import secrets
from typing import Any

from tokenfront.parsers.base import DeltaMessage, ExtractedToolCalls, JSONState, ToolCall
from tokenfront.parsers.engines.json_call_list import complete_calls
from tokenfront.parsers.engines.json_calls import (
    JsonToolParser,
    args_delta,
    dumps,
    name_delta,
    no_calls,
    snapshot_args_delta,
)
from tokenfront.parsers.registry import tool_parser

START = "<tool_calls>"
_BLOCK_RE = re.compile(r"<tool_calls>([\s\S]*?)</tool_calls>", re.DOTALL)
_THINK_RE = re.compile(r"<think>(.*?)</think>", re.DOTALL)
_NAME_RE = re.compile(r'"name"\s*:\s*"([^"]+)"')
_EMPTY_ARGS_RE = re.compile(r'"name"\s*:\s*"[^"]+"\s*,\s*"arguments"\s*:\s*\{\s*\}')
_ARGS_RE = re.compile(
    r'"name"\s*:\s*"[^"]+"\s*,\s*"arguments"\s*:\s*(\{(?:[^{}]|(?:\{[^{}]*\}))*\})'
)
# The template's reply prefix, dropped from plain answers.
_REPLY_PREFIX = "助手："


def _call_id(index: int | None = None) -> str:
    if index is None:
        return f"call_{secrets.token_hex(8)}"
    return f"call_{index}_{secrets.token_hex(8)}"


def _skip_space(i: int, text: str) -> int:
    while i < len(text) and text[i].isspace():
        i += 1
    return i


def split_output(text: str) -> tuple[str | None, str | None]:
    """(content before the calls, the calls' JSON text) or (text, None)."""
    for match in _BLOCK_RE.finditer(text):
        start, end = match.span()
        thinks = [(m.start(), m.end()) for m in _THINK_RE.finditer(text)]
        if any(start > t0 and end < t1 for t0, t1 in thinks):
            continue
        body = match.group(1).strip()
        try:
            json.loads(body)
        except Exception:
            continue
        return text[:start], body
    return text, None


@tool_parser("hunyuan_a13b")
class HunyuanA13BToolParser(JsonToolParser):
    name = "hunyuan_a13b"

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        try:
            content, body = split_output(text)
            if not body:
                if content:
                    content = content.replace(_REPLY_PREFIX, "", 1)
                return no_calls(content)
            data = json.loads(body)
            if not isinstance(data, list):
                return no_calls(content or text)
            calls: list[ToolCall] = []
            for call in data:
                if not isinstance(call, dict) or "name" not in call or "arguments" not in call:
                    continue
                name, args = call["name"], call["arguments"]
                if not isinstance(name, str):
                    raise TypeError(name)
                if isinstance(args, dict):
                    args = dumps(args)
                elif not isinstance(args, str):
                    raise TypeError(args)
                calls.append(ToolCall(name=name, arguments=args, id=_call_id()))
            if not content or not content.strip():
                content = None
            return ExtractedToolCalls(tools_called=bool(calls), tool_calls=calls, content=content)
        except Exception:
            return no_calls(text)

    def remaining_args(self, state: JSONState) -> str:
        # vLLM appends the last call's whole arguments again here; `finish` completes instead.
        return ""

    def finish(self, state: JSONState) -> DeltaMessage | None:
        """What vLLM's steps left out, sent at the end (engines/json_call_list.py)."""
        return complete_calls(state, state.get("text", ""), _call_id)

    def initial_state(self) -> JSONState:
        state = super().initial_state()
        state["cur"] = -1
        state["sent"] = []  # per call: [name sent, "{" sent, arguments sent]
        return state

    def step(
        self,
        state: JSONState,
        previous_text: str,
        current_text: str,
        delta_text: str,
        delta_ids: list[int],
    ) -> DeltaMessage | None:
        start = _skip_space(0, current_text)
        if current_text[start:].startswith(START):
            start = _skip_space(start + len(START), current_text)
        if not current_text or start >= len(current_text) or current_text[start] != "[":
            return DeltaMessage(content=delta_text)
        try:
            parsed = json.loads(current_text[start:])
            if isinstance(parsed, list):
                state["prev"] = parsed
        except json.JSONDecodeError:
            pass
        names = list(_NAME_RE.finditer(current_text))
        count = len(names)
        if count == 0:
            return None
        sent: list[list[Any]] = state["sent"]
        while len(sent) < count:
            sent.append([False, False, ""])
        cur = state["cur"]
        if cur == -1 or cur < count - 1:
            nxt = cur + 1
            if nxt < count and not sent[nxt][0]:
                state["cur"] = nxt
                sent[nxt][0] = True
                return name_delta(nxt, _call_id(nxt), names[nxt].group(1))
        return self._args(state, current_text, cur, count)

    def _args(
        self, state: JSONState, text: str, cur: int, count: int
    ) -> DeltaMessage | None:
        if not 0 <= cur < count:
            return None
        sent: list[list[Any]] = state["sent"]
        # Only the current call's own empty arguments (vLLM: any call's, which sends "{}" for
        # the current call; test_hunyuan_a13b_tool_parser_streaming_one_empty_args_tool).
        names = list(_NAME_RE.finditer(text))
        empty = _EMPTY_ARGS_RE.match(text, names[cur].start()) if cur < len(names) else None
        if empty and empty.start() > 0 and not sent[cur][1]:
            sent[cur][1] = True
            sent[cur][2] = "{}"
            if cur < count - 1:
                state["cur"] = cur + 1
            return args_delta(cur, "{}")
        matches = list(_ARGS_RE.finditer(text))
        if cur >= len(matches):
            return None
        args_text = matches[cur].group(1)
        if cur != count - 1:
            nxt = text.find("},{", matches[cur].start())
            if nxt != -1:
                args_text = text[matches[cur].start() : nxt + 1].split('"arguments":')[1].strip()
        return snapshot_args_delta(state, sent, cur, count, args_text)
