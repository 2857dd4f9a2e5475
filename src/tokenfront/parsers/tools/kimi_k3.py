"""`kimi_k3`: Kimi K3 XTML channels, `response` as content and `tools` as calls.

    <|open|>response<|sep|>text<|close|>response<|sep|>
    <|open|>tools<|sep|>
      <|open|>call tool="NAME" index="1"<|sep|>
        <|open|>argument key="K" type="string"<|sep|>raw<|close|>argument<|sep|>
        <|open|>argument key="K" type="object"<|sep|>{"a":1}<|close|>argument<|sep|>
      <|close|>call<|sep|>
    <|close|>tools<|sep|>

String arguments are raw text, other types JSON (raw text when it does not parse);
attribute values are XML-unescaped (`&quot;`, `&amp;`). Content is the response body (its
opener may sit in the prompt) or the text before the tools channel. Streaming sends response
text as soon as no marker can start in it (up to the end-of-turn `<|close|>message<|sep|>`) and
each call once its block is closed. As in vLLM's KimiK3Parser, the parser also runs for
tool_choice "none" and its content is used.
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
    ToolParser,
)
from tokenfront.parsers.engines.json_in_markers import partial_tag_overlap
from tokenfront.parsers.registry import tool_parser

_O, _C, _S = r"<\|open\|>", r"<\|close\|>", r"<\|sep\|>"
_UNTIL_SEP = r"(?:(?!" + _S + r").)*?"


def channel(marker: str, name: str) -> re.Pattern[str]:
    return re.compile(marker + r"\s*" + name + r"\s*" + _S)


TOOLS_OPEN, TOOLS_CLOSE = channel(_O, "tools"), channel(_C, "tools")
RESPONSE_OPEN, RESPONSE_CLOSE = channel(_O, "response"), channel(_C, "response")
MESSAGE_CLOSE = channel(_C, "message")
_RESPONSE = re.compile(_O + r"\s*response\s*" + _S + r"(?P<c>.*?)" + _C + r"\s*response\s*" + _S, re.DOTALL)
_CALL = re.compile(
    _O + r"\s*call\s+(?P<attrs>" + _UNTIL_SEP + r")" + _S + r"(?P<body>.*?)" + _C + r"\s*call\s*" + _S,
    re.DOTALL,
)
_ARG = re.compile(
    _O + r"\s*argument\s+(?P<attrs>" + _UNTIL_SEP + r")" + _S + r"(?P<val>.*?)" + _C + r"\s*argument\s*" + _S,
    re.DOTALL,
)
_ATTR = re.compile(r'(?P<k>\w+)="(?P<v>[^"]*)"')
HOLD = (
    "<|open|>response<|sep|>",
    "<|close|>response<|sep|>",
    "<|open|>tools<|sep|>",
    "<|close|>message<|sep|>",
)


def _attrs(text: str) -> dict[str, str]:
    return {m["k"]: m["v"].replace("&quot;", '"').replace("&amp;", "&") for m in _ATTR.finditer(text)}


def _decode_call(attrs: str, body: str) -> ToolCall | None:
    name = _attrs(attrs).get("tool", "")
    arguments: dict[str, Any] = {}
    for m in _ARG.finditer(body):
        arg = _attrs(m["attrs"])
        key, raw = arg.get("key", ""), m["val"]
        if arg.get("type", "string") == "string":
            arguments[key] = raw
        else:
            try:
                arguments[key] = json.loads(raw)
            except json.JSONDecodeError:
                arguments[key] = raw
    if not name:
        return None
    return ToolCall(name=name, arguments=json.dumps(arguments, ensure_ascii=False))


def _calls(section: str) -> list[ToolCall]:
    return [c for m in _CALL.finditer(section) if (c := _decode_call(m["attrs"], m["body"])) is not None]


def _strip_response(text: str) -> str | None:
    m_open = RESPONSE_OPEN.search(text)
    if m_open is not None:
        m_close = RESPONSE_CLOSE.search(text, m_open.end())
        text = text[m_open.end() : m_close.start()] if m_close is not None else text[m_open.end() :]
    else:
        text = RESPONSE_CLOSE.sub("", text)
    return MESSAGE_CLOSE.sub("", text) or None


@tool_parser("kimi_k3")
class KimiK3ToolParser(ToolParser):
    name = "kimi_k3"
    supports_required_and_named = False
    engine_based = True

    def _content(self, text: str, before: str) -> str | None:
        m = _RESPONSE.search(text)
        if m is not None:
            return m["c"] or None
        return _strip_response(before)

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        m_open = TOOLS_OPEN.search(text)
        if m_open is None:
            return ExtractedToolCalls(False, [], self._content(text, text))
        before = text[: m_open.start()]
        m_close = TOOLS_CLOSE.search(text, m_open.end())
        section = text[m_open.end() :] if m_close is None else text[m_open.end() : m_close.start()]
        calls = _calls(section)
        return ExtractedToolCalls(bool(calls), calls, self._content(text, before))

    def initial_state(self) -> JSONState:
        return {"sent": 0, "calls": 0}

    def _response_delta(self, state: JSONState, current: str) -> str | None:
        m_open = RESPONSE_OPEN.search(current)
        body_start = m_open.end() if m_open is not None else 0
        m_tools = TOOLS_OPEN.search(current, body_start)
        m_close = RESPONSE_CLOSE.search(current, body_start)
        # The end-of-turn marker ends the streamed response too (vLLM's test: streaming must
        # match the one-shot content, which strips it; vLLM 0.33.0 streams it).
        m_message = MESSAGE_CLOSE.search(current, body_start)
        ends = [m.start() for m in (m_tools, m_close, m_message) if m is not None]
        if ends:
            sendable = min(ends)
        else:
            sendable = len(current) - max(partial_tag_overlap(current, tag) for tag in HOLD)
        if sendable <= body_start:
            return None
        state["sent"] = max(state["sent"], body_start)
        if sendable <= state["sent"]:
            return None
        content = current[state["sent"] : sendable]
        state["sent"] = sendable
        return content or None

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> DeltaMessage | None:
        if "sent" not in state:
            state.update(self.initial_state())
        _, current = self.accumulate(state, delta_text)
        content = self._response_delta(state, current)
        m_tools = TOOLS_OPEN.search(current)
        if m_tools is None:
            return DeltaMessage(content=content) if content else None
        calls = _calls(current[m_tools.end() :])
        if len(calls) <= state["calls"]:
            return DeltaMessage(content=content) if content else None
        deltas = [
            DeltaToolCall(index=i, id=self.new_tool_call_id(c.name), type="function",
                          name=c.name, arguments=c.arguments)
            for i, c in enumerate(calls) if i >= state["calls"]
        ]  # fmt: skip
        state["calls"] = len(calls)
        return DeltaMessage(content=content, tool_calls=deltas)
