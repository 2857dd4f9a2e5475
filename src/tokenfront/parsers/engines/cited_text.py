"""Answer / reasoning text of the mode filter: whitespace trimming and inline citations.

Cohere models cite sources inline: `<co>cited text</co: 0:[1,2]>` (tool call 0, results 1
and 2). The text is sent without the tags; an open citation's text is sent as it grows
(`state["cb"]` remembers how much of the buffered citation went out), and text with a
possible citation start (`<`, `<c`, `<co`) waits for the next chunk. Trailing whitespace
stays buffered until non-whitespace follows; it is dropped at the end of the output.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tokenfront.parsers.base import JSONState
from tokenfront.parsers.engines.json_in_markers import partial_tag_overlap

OPEN = "<co>"
CLOSE = "</co: "
CLOSE_END = ">"


@dataclass
class Batch:
    """What one write (or the final flush) releases, merged like the filter's aggregate."""

    content: str | None = None
    reasoning: str | None = None
    calls: dict[int, dict[str, str]] = field(default_factory=dict)
    citations: list[dict[str, Any]] = field(default_factory=list)

    def add_text(self, text: str, reasoning: bool) -> None:
        if not text:
            return
        if reasoning:
            self.reasoning = (self.reasoning or "") + text
        else:
            self.content = (self.content or "") + text

    def add_call(self, index: int, *, id: str = "", name: str = "", args: str = "") -> None:
        piece = self.calls.setdefault(index, {"id": "", "name": "", "args": ""})
        if id:
            piece["id"] = id
        if name:
            piece["name"] = name
        piece["args"] += args

    def merge(self, other: Batch) -> None:
        if other.content is not None:
            self.content = (self.content or "") + other.content
        if other.reasoning is not None:
            self.reasoning = (self.reasoning or "") + other.reasoning
        for index, piece in sorted(other.calls.items()):
            self.add_call(index, id=piece["id"], name=piece["name"], args=piece["args"])
        self.citations.extend(other.citations)

    def call_list(self) -> list[tuple[int, dict[str, str]]]:
        return sorted(self.calls.items())


def _find(text: str, marker: str) -> tuple[int, bool]:
    """(index, complete) of the first `marker` in `text`, else of a partial marker ending it."""
    idx = text.find(marker)
    if idx >= 0:
        return idx, True
    k = partial_tag_overlap(text, marker)
    return (len(text) - k if k else -1), False


def _sources(spec: str) -> list[dict[str, Any]]:
    """`0:[1,2],1:[3]` -> [{tool_call_index: 0, tool_result_indices: [1, 2]}, ...]."""
    out: list[dict[str, Any]] = []
    for part in spec.strip().split("]")[:-1]:
        pieces = part.lstrip(",").split(":")
        if len(pieces) != 2 or not pieces[0].strip().isdigit():
            continue
        results = [int(x) for x in pieces[1].lstrip("[").split(",") if x.strip().isdigit()]
        out.append({"tool_call_index": int(pieces[0].strip()), "tool_result_indices": results})
    return out


def _plain(state: JSONState, text: str) -> tuple[str | None, list[dict[str, Any]], int]:
    state["ti"] += len(text)
    return text, [], len(text)


def _partial_citation(state: JSONState, text: str, open_at: int, open_end: int, close_at: int) -> tuple[str, int]:
    """Text of a citation still open: what is new since the last call."""
    before = text[:open_at]
    state["ti"] += len(before)
    sent = state["cb"]
    if sent is not None and sent >= len(text):
        return before, len(before)
    start = sent if sent is not None else open_end + 1
    state["cb"] = len(text) - len(before)
    end = close_at if close_at > 0 else len(text)
    if start >= end:
        return before, len(before)
    return before + text[start:end], len(before)


def parse_citations(state: JSONState, text: str, reasoning: bool) -> tuple[str | None, list[dict[str, Any]], int]:
    """(text to send or None to wait, citations, characters used up)."""
    if "<" not in text:
        return _plain(state, text)
    open_at, open_full = _find(text, OPEN)
    if open_at < 0:
        return _plain(state, text)
    if not open_full:
        return None, [], 0
    open_end = open_at + len(OPEN) - 1
    close_at, close_full = _find(text, CLOSE)
    close_end = -1
    if close_at >= 0 and close_full:
        rel = text[close_at + 1:].find(CLOSE_END)
        close_end = close_at + 1 + rel if rel >= 0 else -1
    if close_at < 0 or close_end < 0:
        piece, used = _partial_citation(state, text, open_at, open_end, close_at)
        return (piece, [], used) if piece else (None, [], 0)
    if open_end > close_at:
        return None, [], 0
    cited = text[open_end + 1:close_at]
    start_index = state["ti"] + open_at
    sent = text[:open_at] + cited
    state["ti"] += len(sent)
    if state["cb"] is not None:
        sent = text[state["cb"]:close_at] if state["cb"] < close_at else ""
    state["cb"] = None
    citations = [{
        "start": start_index,
        "end": start_index + len(cited),
        "text": cited,
        "sources": _sources(text[close_at + len(CLOSE):close_end]),
        "thinking": reasoning,
    }]
    more, more_cits, more_used = parse_citations(state, text[close_end + 1:], reasoning)
    if more is not None:
        sent += more
        citations += more_cits
    return sent, citations, close_end + 1 + more_used


def _trim(state: JSONState, text: str) -> tuple[str, int]:
    """(text without trailing and, while `lt`, leading whitespace; trailing length)."""
    kept = text.rstrip()
    tail = len(text) - len(kept)
    if state["lt"]:
        kept = kept.lstrip()
        if kept:
            state["lt"] = False
    return kept, tail


def process_text(state: JSONState, text: str, last: bool, reasoning: bool, out: Batch) -> int:
    """Answer or reasoning text; returns how much of `text` is used up."""
    send, tail = _trim(state, text)
    left = len(text) - len(send) - tail
    piece, citations, used = parse_citations(state, send, reasoning)
    if piece is None or (not piece and not citations):
        if not send or not last:
            return left + used
        sent, state["cb"] = state["cb"], None
        piece = send if sent is None else (send[sent:] if sent < len(send) else "")
        if not piece:
            return left + used
        citations = []
    out.add_text(piece, reasoning)
    out.citations.extend(citations)
    return left + used
