"""muse, musespark1x, muse_glimmer: reasoning in `to=self` channel messages.

    to=self<|message|>...reasoning...<|eom|><|start|>assistant to=user<|message|>answer<|eot|>

Muse (Spark) reads messages as `[<|start|>assistant] [to=RCPT]<|message|>BODY`: recipient-less
and `self` bodies are reasoning, `user` and `commentary` bodies content, `developer` dropped;
once a tool channel (`to=NAME` with ATEM markup) appears, reasoning ends and the framed
messages go to the tool parser. The Glimmer profile keeps its original rules (only
`to=RCPT<|message|>` headers, `self` reasoning, `user` content). Reasoning ends only at a tool
channel, judged on the whole text so far; streaming re-reads it each chunk and holds back a
tail that may still be framing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import ClassVar

from tokenfront.parsers.base import DeltaMessage, JSONState, ReasoningParser
from tokenfront.parsers.engines.lazy_blocks import lazy_blocks, without
from tokenfront.parsers.registry import reasoning_parser

EOM, EOT = "<|eom|>", "<|eot|>"
CALLS_OPEN = "<atem:function_calls>"
_TURN_OPEN = "<|start|>assistant"
_CHANNEL = re.compile(r"to=(?P<recipient>[^\s<]+)<\|message\|>")
_HEADER_PAT = r"to=[^\s<]+<\|message\|>"
_CONTENT = re.compile(r"to=user<\|message\|>(.*?)(?=<\|eot\|>|<\|eom\|>|$)", re.DOTALL)
_STRIP_OPEN_REASONING = re.compile(
    r"(?:<\|start\|>assistant\s*)?to=self<\|message\|>"
    r"(?:(?!<\|eom\|>)(?!" + _HEADER_PAT + r").)*(?=" + _HEADER_PAT + r"|$)",
    re.DOTALL,
)
_BARE_HEADER = re.compile(
    r"\s*(?:<\|start\|>assistant\s*)?<\|message\|>(.*?)(?=<\|eot\|>|<\|eom\|>|$)", re.DOTALL
)
_OPEN_REASONING = re.compile(
    r"to=self<\|message\|>((?:(?!<\|eom\|>)(?!" + _HEADER_PAT + r").)*)(?=" + _HEADER_PAT + r"|$)",
    re.DOTALL,
)
_HOLDBACK = (EOM, EOT, "<|start|>", "<|message|>")
_OPEN_TAIL_HEADER = re.compile(r"[\s](?:t|to|to=[^\s<]*)$")
_MUSE_HEADER = re.compile(r"(?:<\|start\|>assistant\s*)?(?:to=(?P<recipient>[^\s<]+))?<\|message\|>")
_BOUNDARY = re.compile(r"<\|eom\|>|<\|eot\|>|<\|start\|>")
_OTHER_ROLE = re.compile(r"<\|start\|>(?!assistant(?:\s|<|$))[^\s<]+")
_NON_TOOL = (None, "self", "user", "commentary", "developer")


_SELF_HEADER = "to=self<|message|>"


def _closed_reasoning(text: str) -> Iterator[tuple[int, int]]:
    """vLLM's `(?:<|start|>assistant\\s*)?to=self<|message|>.*?<|eom|>` (DOTALL) matches: the
    lazy blocks, each with the turn opener (and whitespace) right before it when that lies
    after the previous match."""
    pos = 0
    for start, end in lazy_blocks(text, _SELF_HEADER, EOM):
        before = start
        while before > pos and text[before - 1].isspace():
            before -= 1
        opener = before - len(_TURN_OPEN)
        if opener >= pos and text.startswith(_TURN_OPEN, opener):
            start = opener
        yield start, end
        pos = end


def _strip_reasoning(text: str) -> str:
    """`text` without its reasoning messages, closed (`_closed_reasoning`) and open."""
    return _STRIP_OPEN_REASONING.sub("", without(text, _closed_reasoning(text)))


def _closed_reasoning_bodies(text: str) -> list[str]:
    """vLLM's `to=self<|message|>(.*?)<|eom|>` bodies, read after dropping what lies between
    an `<|eom|>` and the next reasoning header (its `<|eom|>(?:(?!H).)*?H` collapse), so
    consecutive reasoning messages read as one."""
    collapsed = without(text, lazy_blocks(text, EOM, _SELF_HEADER))
    return [
        collapsed[start + len(_SELF_HEADER) : end - len(EOM)]
        for start, end in lazy_blocks(collapsed, _SELF_HEADER, EOM)
    ]


def _has_atem(text: str) -> bool:
    return CALLS_OPEN in text or "<atem:invoke" in text


def muse_messages(text: str) -> Iterator[tuple[str | None, str, bool, str]]:
    """(recipient, body, closed, framed text) per message."""
    headers = list(_MUSE_HEADER.finditer(text))
    for i, header in enumerate(headers):
        end = headers[i + 1].start() if i + 1 < len(headers) else len(text)
        boundary = _BOUNDARY.search(text, header.end(), end)
        body_end = boundary.start() if boundary else end
        closed = boundary is not None or i + 1 < len(headers)
        yield header.group("recipient"), text[header.end() : body_end], closed, text[header.start() : end]


def _current_turn(text: str) -> str:
    roles = list(_OTHER_ROLE.finditer(text))
    if roles:
        start = text.find(_TURN_OPEN, roles[-1].end())
        return text[start:] if start != -1 else ""
    return text


def _trim_open_body(body: str) -> str:
    """Drop a tail that may still become framing (to a fixpoint)."""
    while True:
        trimmed = body
        for marker in _HOLDBACK:
            for k in range(min(len(marker) - 1, len(trimmed)), 0, -1):
                if trimmed.endswith(marker[:k]):
                    trimmed = trimmed[:-k]
                    break
            else:
                continue
            break
        tail = _OPEN_TAIL_HEADER.search(trimmed)
        if tail is not None:
            trimmed = trimmed[: tail.start()]
        if trimmed == body:
            return body
        body = trimmed


@reasoning_parser("muse", "musespark1x")
class MuseReasoningParser(ReasoningParser):
    glimmer: ClassVar[bool] = False

    def is_reasoning_end(self, token_ids: Sequence[int]) -> bool:
        try:
            text = self.tokenizer.decode(list(token_ids))
        except Exception:
            return False
        return _has_atem(self._tool_remainder(text))

    def extract_content_ids(self, token_ids: Sequence[int]) -> list[int]:
        return []

    # ---- channels --------------------------------------------------------------------------
    @classmethod
    def _tool_remainder(cls, text: str) -> str:
        """The text from the first tool-channel header on (framing included)."""
        if not cls.glimmer:
            scoped = _current_turn(text)
            headers = list(_MUSE_HEADER.finditer(scoped))
            for header, (rcpt, body, _, _) in zip(headers, muse_messages(scoped), strict=False):
                if rcpt not in _NON_TOOL and _has_atem(body):
                    return scoped[header.start() :]
            return ""
        at = text.rfind(_TURN_OPEN)
        scoped = text[at + len(_TURN_OPEN) :] if at != -1 else text
        scoped = _strip_reasoning(scoped)
        for m in _CHANNEL.finditer(scoped):
            if m.group("recipient") not in ("self", "user"):
                return scoped[m.start() :]
        return ""

    @staticmethod
    def _first_tool_channel(text: str) -> str:
        """Glimmer: the text from its first tool channel on, reasoning blocks removed (what
        one-shot parsing hands the tool parser). `_tool_remainder` looks at the last turn
        only, which lost earlier calls when one chunk held several turns."""
        scoped = _strip_reasoning(text)
        for m in _CHANNEL.finditer(scoped):
            if m.group("recipient") not in ("self", "user"):
                return scoped[m.start() :]
        return ""

    @classmethod
    def _classify(cls, text: str) -> tuple[str, str]:
        reasoning: list[str] = []
        content: list[str] = []
        if not cls.glimmer:
            for rcpt, body, closed, _ in muse_messages(text):
                if not closed:
                    body = _trim_open_body(body)
                if rcpt in (None, "self"):
                    reasoning.append(body)
                elif rcpt in ("user", "commentary"):
                    content.append(body)
            return "".join(reasoning), "".join(content)
        pos, n = 0, len(text)
        eom = eot = -2  # the next `<|eom|>` / `<|eot|>` at or after the last start (-1: none)
        while pos < n:
            m = _CHANNEL.search(text, pos)
            if not m:
                break
            start = m.end()
            if eom == -2 or -1 < eom < start:
                eom = text.find(EOM, start)
            if eot == -2 or -1 < eot < start:
                eot = text.find(EOT, start)
            ends = [p for p in (eom, eot) if p != -1]
            nxt = _CHANNEL.search(text, start)
            if nxt is not None:
                ends.append(nxt.start())
            body_end = min(ends) if ends else n
            body = text[start:body_end]
            if not ends:
                body = _trim_open_body(body)
            if m.group("recipient") == "self":
                reasoning.append(body)
            elif m.group("recipient") == "user" and not _has_atem(body):
                content.append(body)
            if ends and body_end in (eom, eot):
                pos = body_end + len(EOM if body_end == eom else EOT)
            else:
                pos = body_end
        return "".join(reasoning), "".join(content)

    # ---- one-shot --------------------------------------------------------------------------
    def extract_reasoning(self, text: str) -> tuple[str | None, str | None]:
        if not self.glimmer:
            messages = list(muse_messages(text))
            if not messages:
                return None, text or None
            reasoning = "".join(b for r, b, _, _ in messages if r in (None, "self")) or None
            if any(r not in _NON_TOOL and _has_atem(b) for r, b, _, _ in messages):
                content = "".join(f for r, _, _, f in messages if r not in (None, "self", "developer"))
            else:
                content = "".join(b for r, b, _, _ in messages if r in ("user", "commentary"))
            return reasoning, content or None
        # reasoning blocks concatenate (tests/parser/engine/test_muse_glimmer.py; vLLM 0.33.0
        # joined them with newlines)
        found = _closed_reasoning_bodies(text)
        reasoning_text = "".join(found) or None
        open_match = _OPEN_REASONING.search(text)
        if open_match and open_match.group(1):
            partial = open_match.group(1)
            reasoning_text = f"{reasoning_text}{partial}" if reasoning_text else partial
        remainder = _strip_reasoning(text)
        if _has_atem(remainder):
            return reasoning_text, remainder or None
        m = _CONTENT.search(text)
        if m:
            return reasoning_text, m.group(1) or None
        if "to=self<|message|>" in text:
            return reasoning_text, None
        bare = _BARE_HEADER.match(text)
        if bare:  # a header without recipient: untagged content (test_muse_glimmer.py)
            return None, bare.group(1) or None
        return None, text or None

    # ---- streaming -------------------------------------------------------------------------
    def initial_state(self, prompt_token_ids: Sequence[int] | None) -> JSONState:
        return {"_text": "", "er": "", "ec": "", "handoff": False}

    def fallback_content(self, state: JSONState) -> str | None:
        text = state.get("_text", "")
        _, content = self._classify(text)
        if self.glimmer and not content and not state["ec"]:
            # Output without a `to=user` / `to=self` channel is content only once it is known
            # to stay unframed (a later `<|eom|>` would drop it): the end of the stream
            # releases what one-shot parsing makes content. vLLM 0.33.0 streamed nothing;
            # tests/parser/engine/test_muse_glimmer.py::TestNonStreaming::
            # test_unframed_output_passes_through / test_bare_header_is_untagged_content.
            reasoning, whole = self.extract_reasoning(text)
            return whole if whole and not reasoning and not state["er"] else None
        return content[len(state["ec"]) :] or None

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> tuple[DeltaMessage | None, bool]:
        state["_text"] += delta_text
        current = state["_text"]
        delta = self._delta(state, current)
        return delta, _has_atem(self._tool_remainder(current))

    def _delta(self, state: JSONState, current: str) -> DeltaMessage | None:
        if not self.glimmer and not state["handoff"]:
            remainder = self._tool_remainder(current)
            if remainder:
                reasoning, content = self._classify(current[: -len(remainder)])
                reasoning, content = reasoning[len(state["er"]) :], content[len(state["ec"]) :]
                pending = ""
                if reasoning:
                    pending += f"to=self<|message|>{reasoning}<|eom|>"
                if content:
                    pending += f"to=commentary<|message|>{content}<|eom|>"
                state["handoff"] = True
                return DeltaMessage(content=pending + remainder)
        reasoning, content = self._classify(current)
        r_delta = c_delta = ""
        if reasoning.startswith(state["er"]) and len(reasoning) > len(state["er"]):
            r_delta, state["er"] = reasoning[len(state["er"]) :], reasoning
        if content.startswith(state["ec"]) and len(content) > len(state["ec"]):
            c_delta, state["ec"] = content[len(state["ec"]) :], content
        if not state["handoff"]:
            remainder = self._tool_remainder(current)
            if _has_atem(remainder):
                state["handoff"] = True
                if self.glimmer:
                    remainder = self._first_tool_channel(current) or remainder
                return DeltaMessage(reasoning=r_delta or None, content=remainder)
        if r_delta or c_delta:
            return DeltaMessage(reasoning=r_delta or None, content=c_delta or None)
        return None


@reasoning_parser("muse_glimmer")
class MuseGlimmerReasoningParser(MuseReasoningParser):
    glimmer = True
