"""Channel-format engine: gpt-oss "Harmony" messages read from decoded text.

The assistant output is a sequence of messages

    [<|start|>assistant] HEADER <|message|> TEXT (<|end|> | <|call|> | <|return|>)

where HEADER holds `<|channel|>CHANNEL`, optionally ` to=RECIPIENT` and a content type
(` <|constrain|>json` or a bare word). Channel `analysis` is reasoning, `final` (and
`commentary` without a recipient) is content, and a message addressed to a function
(`to=functions.NAME`, or any recipient that is not a built-in tool) is a tool call whose
JSON arguments are re-serialised with `json.dumps` defaults.

The parser works on text (special tokens kept), so it needs no Harmony encoding files.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
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

START, MESSAGE, CHANNEL, CONSTRAIN = "<|start|>", "<|message|>", "<|channel|>", "<|constrain|>"
ENDS = ("<|end|>", "<|call|>", "<|return|>")
MARKERS = (START, MESSAGE, *ENDS)
BUILTIN_TOOLS = frozenset({"python", "browser", "container"})
_RECIPIENT = re.compile(r"to=([^\s<]+)")


def is_function_recipient(recipient: str | None) -> bool:
    if not recipient or recipient.startswith("<|") or recipient == "assistant":
        return False
    if recipient.startswith("functions."):
        return len(recipient) > len("functions.")
    return recipient not in BUILTIN_TOOLS and recipient.split(".", 1)[0] not in BUILTIN_TOOLS


@dataclass
class Header:
    role: str
    channel: str | None
    recipient: str | None
    content_type: str | None


def parse_header(text: str) -> Header:
    """Fields of a message header (the text between `<|start|>` and `<|message|>`)."""
    role = "assistant"
    stripped = text.lstrip()
    if stripped and not stripped.startswith(("<|", "to=")):
        role = re.split(r"[\s<]", stripped, maxsplit=1)[0]
    recipient_match = _RECIPIENT.search(text)
    recipient = recipient_match.group(1) if recipient_match else None
    rest = _RECIPIENT.sub(" ", text)
    channel = None
    if CHANNEL in rest:
        after = rest.split(CHANNEL, 1)[1]
        words = after.replace(CONSTRAIN, " ").split()
        channel = words[0] if words else ""
        extra = words[1:]
    else:
        extra = rest.replace(CONSTRAIN, " ").split()[1:]
    content_type = None
    if CONSTRAIN in rest:
        tail = rest.split(CONSTRAIN, 1)[1].split()
        content_type = tail[0] if tail else None
    elif extra:
        content_type = extra[-1]
    return Header(role, channel, recipient, content_type)


def _kind(header: Header) -> str:
    if header.recipient and is_function_recipient(header.recipient):
        return "tool"
    if header.channel == "analysis":
        return "reasoning"
    if header.channel == "final" or (header.channel == "commentary" and header.recipient is None):
        return "content"
    return "ignore"


def tool_arguments(text: str, content_type: str | None) -> str:
    if content_type is not None and "json" not in content_type:
        return text
    try:
        return json.dumps(json.loads(text))
    except ValueError:
        return text


@dataclass
class Parsed:
    reasoning: str | None
    content: str | None
    calls: list[ToolCall]


def parse_messages(text: str) -> Parsed:
    """One-shot split of a whole assistant output."""
    reasoning: list[str] = []
    content: list[str] = []
    calls: list[ToolCall] = []
    pos = 0
    if text.startswith(START):
        pos = len(START)
    while pos < len(text):
        body_at = text.find(MESSAGE, pos)
        if body_at == -1:
            # A header that never reached its body: the raw text is recovered as content.
            raw = text[pos:]
            if raw.strip():
                content.append(raw)
            break
        header = parse_header(text[pos:body_at])
        body_start = body_at + len(MESSAGE)
        ends = [(text.find(e, body_start), e) for e in ENDS]
        found = [(i, e) for i, e in ends if i != -1]
        end_at, end_token = min(found) if found else (len(text), "")
        body = text[body_start:end_at]
        pos = end_at + len(end_token)
        if text.startswith(START, pos):
            pos += len(START)
        if header.role != "assistant" or not body:
            if header.role == "assistant" and _kind(header) == "tool":
                recipient = header.recipient or ""
                calls.append(ToolCall(name=recipient.removeprefix("functions."), arguments=""))
            continue
        kind = _kind(header)
        if kind == "reasoning":
            reasoning.append(body)
        elif kind == "content":
            content.append(body)
        elif kind == "tool":
            name = header.recipient.removeprefix("functions.")  # type: ignore[union-attr]
            calls.append(ToolCall(name=name, arguments=tool_arguments(body, header.content_type)))
    return Parsed("\n".join(reasoning) or None, "\n".join(content) or None, calls)


class ChannelToolParser(ToolParser):
    """Tool calls (and content) of Harmony-format output."""

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        parsed = parse_messages(text)
        return ExtractedToolCalls(bool(parsed.calls), parsed.calls, parsed.content)

    # -- streaming ----------------------------------------------------------------

    def initial_state(self) -> JSONState:
        # mode: "header" | "body"; head: header text so far; hold: a tail that may be the
        # start of a marker; kind/recipient of the open message; next: next tool index.
        return {
            "mode": "header",
            "head": "",
            "hold": "",
            "kind": None,
            "recipient": None,
            "prev": None,
            "next": 0,
        }

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> DeltaMessage | None:
        if "mode" not in state:
            state.update(self.initial_state())
        text = state["hold"] + delta_text
        state["hold"] = ""
        out: dict[str, Any] = {"content": "", "reasoning": "", "calls": []}
        while text:
            if state["mode"] == "header":
                # The header so far is searched too: without Harmony special tokens in the
                # vocabulary `<|message|>` arrives in pieces.
                text = state["head"] + text
                at = text.find(MESSAGE)
                if at == -1:
                    state["head"] = text
                    break
                head = text[:at]
                text = text[at + len(MESSAGE) :]
                state["head"] = ""
                header = parse_header(
                    head.replace(START, " ", 1) if head.startswith(START) else head
                )
                state.update(mode="body", kind=_kind(header), recipient=header.recipient)
                self._emit(state, out, "")
                continue
            cut, token = len(text), ""
            for end in ENDS:
                i = text.find(end)
                if i != -1 and i < cut:
                    cut, token = i, end
            body = text[:cut]
            if not token:
                keep = _partial_marker(body)
                body, state["hold"] = body[: len(body) - keep], body[len(body) - keep :]
            self._emit(state, out, body)
            if not token:
                break
            text = text[cut + len(token) :]
            if text.startswith(START):
                text = text[len(START) :]
            state.update(mode="header", kind=None, recipient=None, prev=None)
        if not (out["content"] or out["reasoning"] or out["calls"]):
            return None
        return DeltaMessage(
            content=out["content"] or None,
            reasoning=out["reasoning"] or None,
            tool_calls=out["calls"],
        )

    def _emit(self, state: JSONState, out: dict[str, Any], delta: str) -> None:
        kind = state["kind"]
        if kind == "content":
            out["content"] += delta
        elif kind == "reasoning":
            out["reasoning"] += delta
        elif kind == "tool":
            recipient = state["recipient"]
            if state["prev"] != recipient:
                name = recipient.removeprefix("functions.")
                out["calls"].append(
                    DeltaToolCall(
                        index=state["next"],
                        id=self.new_tool_call_id(name),
                        type="function",
                        name=name,
                        arguments=delta,
                    )
                )
                state["next"] += 1
                state["prev"] = recipient
            elif delta:
                calls: list[DeltaToolCall] = out["calls"]
                if calls:
                    calls[-1].arguments = (calls[-1].arguments or "") + delta
                else:
                    calls.append(DeltaToolCall(index=state["next"] - 1, arguments=delta))

    def finish(self, state: JSONState) -> DeltaMessage | None:
        if state.get("hold") and state.get("mode") == "body":
            out: dict[str, Any] = {"content": "", "reasoning": "", "calls": []}
            self._emit(state, out, state["hold"])
            state["hold"] = ""
            if out["content"] or out["reasoning"] or out["calls"]:
                return DeltaMessage(
                    content=out["content"] or None,
                    reasoning=out["reasoning"] or None,
                    tool_calls=out["calls"],
                )
        return None


def _partial_marker(text: str) -> int:
    """Length of the longest suffix of `text` that begins one of the end markers."""
    return max(partial_tag_overlap(text, marker) for marker in ENDS)
