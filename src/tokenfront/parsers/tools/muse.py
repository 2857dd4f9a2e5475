"""`muse`, `musespark1x`, `muse_glimmer`: ATEM tool calls inside Muse channel messages.

    <|start|>assistant to=self<|message|>...reasoning...<|eom|>
    <|start|>assistant to=get_weather<|message|><atem:function_calls>
    <atem:invoke name="get_weather"><atem:parameter name="city">Paris</atem:parameter></atem:invoke>
    </atem:function_calls><|eom|>
    <|start|>assistant to=user<|message|>...answer...<|eot|>

The output is cut into messages (a header `[<|start|>assistant] [to=RCPT]<|message|>`, a body
ending at `<|eom|>`, `<|eot|>`, the next header or `<|start|>`). Invokes count only in
messages addressed to a tool; parameter values are JSON-decoded when they parse (string-typed
schema parameters stay verbatim for muse). Reasoning and content come from the recipient
lists of each profile. Streaming re-reads the whole output each chunk, holds back a tail
that may still be framing, and sends each call whole once its invoke is complete.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

from tokenfront.parsers.base import (
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCalls,
    JSONState,
    ToolCall,
    ToolParser,
)
from tokenfront.parsers.registry import tool_parser

_HEADER = re.compile(r"(?:<\|start\|>\s*assistant)?[^\S\n]*(?:to=(?P<rcpt>[A-Za-z0-9_.\-]+))?<\|message\|>")
_END = re.compile(r"<\|eom\|>|<\|eot\|>")
_MARKERS = ("<|eom|>", "<|eot|>", "<|start|>", "<|message|>")
_MAX_MARKER = max(len(m) for m in _MARKERS)
_OPEN_TAIL_TO = re.compile(r"[^\S\n]+to=[A-Za-z0-9_.\-]*$")
_INVOKE = re.compile(r"(<atem:invoke\b.*?</atem:invoke>)", re.DOTALL)
_NAME = re.compile(r'<atem:invoke\b[^>]*?\bname="([^"]+)"')
_PARAM = re.compile(
    r'<atem:parameter\b[^>]*?\bname="(?P<key>[^"]+)"[^>]*?>(?P<value>.*?)</atem:parameter>', re.DOTALL
)
CALLS_OPEN = "<atem:function_calls>"


def _decode(raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def iter_messages(text: str) -> Iterator[tuple[str | None, str, bool]]:
    """(recipient, body, closed) per message; the next header also ends a body."""
    pos = 0
    while pos < len(text):
        header = _HEADER.search(text, pos)
        if header is None:
            return
        start = header.end()
        end = _END.search(text, start)
        nxt = _HEADER.search(text, start)
        body_end = end.start() if end is not None else len(text)
        closed = end is not None
        if nxt is not None and nxt.start() < body_end:
            body_end, closed, next_pos = nxt.start(), False, nxt.start()
        else:
            next_pos = end.end() if end is not None else len(text)
        body = text[start:body_end]
        at = body.find("<|start|>")
        if at != -1:
            body, closed = body[:at], False
        yield header.group("rcpt"), body, closed
        pos = next_pos


def _partial_marker_len(text: str) -> int:
    for k in range(min(len(text), _MAX_MARKER - 1), 0, -1):
        if any(m.startswith(text[-k:]) for m in _MARKERS):
            return k
    return 0


def _safe_open_body(body: str) -> str:
    tail = _OPEN_TAIL_TO.search(body)
    if tail is not None:
        return body[: tail.start()]
    k = _partial_marker_len(body)
    return body[: len(body) - k] if k else body


def _has_atem(text: str) -> bool:
    return CALLS_OPEN in text or "<atem:invoke" in text


@tool_parser("muse", "musespark1x")
class MuseToolParser(ToolParser):
    name = "muse"
    supports_required_and_named = False
    preserve_string_parameters: ClassVar[bool] = True
    reasoning_recipients: ClassVar[tuple[str | None, ...]] = (None, "self")
    content_recipients: ClassVar[tuple[str | None, ...]] = ("user", "commentary")
    non_tool_recipients: ClassVar[tuple[str, ...]] = ("self", "user", "commentary", "developer")

    # ---- request facts ---------------------------------------------------------------------
    def _registered(self) -> set[str]:
        names = set()
        for tool in self.ctx.tools or ():
            function = tool.get("function") if isinstance(tool, dict) else None
            name = (function or tool).get("name") if isinstance(function or tool, dict) else None
            if name:
                names.add(name)
        return names

    def _string_params(self) -> dict[str, set[str]]:
        if not self.preserve_string_parameters:
            return {}
        out: dict[str, set[str]] = {}
        for tool in self.ctx.tools or ():
            function = tool.get("function") if isinstance(tool, dict) else None
            function = function or tool
            name, params = function.get("name"), function.get("parameters")
            if name and isinstance(params, dict):
                out[name] = {
                    k for k, s in (params.get("properties") or {}).items()
                    if isinstance(s, dict) and s.get("type") == "string"
                }  # fmt: skip
        return out

    @staticmethod
    def _normalize(name: str, registered: set[str]) -> str:
        if not registered or name in registered:
            return name
        head, sep, tail = name.partition(".")
        return head if sep and head == tail and head in registered else name

    # ---- channels --------------------------------------------------------------------------
    def _tool_text(self, text: str) -> str:
        bodies = [
            body for rcpt, body, _ in iter_messages(text)
            if rcpt is not None and rcpt not in self.non_tool_recipients
        ]  # fmt: skip
        if bodies:
            return "\n".join(bodies)
        if _HEADER.search(text) is None and _has_atem(text):
            return text
        return ""

    def _visible(self, text: str) -> tuple[str, str, bool, bool]:
        content: list[str] = []
        reasoning: list[str] = []
        content_open = reasoning_open = False
        for rcpt, body, closed in iter_messages(text):
            if rcpt in self.reasoning_recipients:
                reasoning.append(body)
                reasoning_open = not closed
            elif rcpt in self.content_recipients:
                content.append(body)
                content_open = not closed
        return "".join(content), "".join(reasoning), content_open, reasoning_open

    def _calls(self, text: str) -> list[ToolCall]:
        registered, strings = self._registered(), self._string_params()
        calls = []
        for invoke in _INVOKE.findall(self._tool_text(text)):
            m = _NAME.search(invoke)
            if not m:
                continue
            name = self._normalize(m.group(1), registered)
            keep = strings.get(name, set())
            args = {
                p.group("key"): p.group("value") if p.group("key") in keep else _decode(p.group("value"))
                for p in _PARAM.finditer(invoke)
            }
            calls.append(ToolCall(name=name, arguments=json.dumps(args, ensure_ascii=False)))
        return calls

    def _content(self, text: str) -> str | None:
        content, reasoning, _, _ = self._visible(text)
        if content:
            return content
        if not reasoning and _HEADER.search(text) is None:
            return text or None
        return None

    # ---- one-shot --------------------------------------------------------------------------
    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        if not _has_atem(text):
            return ExtractedToolCalls(False, [], self._content(text))
        calls = self._calls(text)
        return ExtractedToolCalls(bool(calls), calls, self._content(text))

    # ---- streaming -------------------------------------------------------------------------
    def initial_state(self) -> JSONState:
        return {"c": 0, "r": 0, "n": 0}

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> DeltaMessage | None:
        if "c" not in state:
            state.update(self.initial_state())
        _, current = self.accumulate(state, delta_text)
        calls = self._calls(current)
        content, reasoning, content_open, reasoning_open = self._visible(current)
        if content_open:
            content = _safe_open_body(content)
        if reasoning_open:
            reasoning = _safe_open_body(reasoning)
        content_delta, reasoning_delta = content[state["c"] :], reasoning[state["r"] :]
        tool_deltas = [
            DeltaToolCall(index=i, id=self.new_tool_call_id(c.name), type="function",
                          name=c.name, arguments=c.arguments)
            for i, c in enumerate(calls) if i >= state["n"]
        ]  # fmt: skip
        if not content_delta and not reasoning_delta and not tool_deltas:
            return None
        state["c"], state["r"], state["n"] = len(content), len(reasoning), len(calls)
        return DeltaMessage(
            content=content_delta or None, reasoning=reasoning_delta or None, tool_calls=tool_deltas
        )


@tool_parser("muse_glimmer")
class MuseGlimmerToolParser(MuseToolParser):
    name = "muse_glimmer"
    preserve_string_parameters = False
    reasoning_recipients = ("self",)
    content_recipients = (None, "user")
    non_tool_recipients = ("self", "user")
