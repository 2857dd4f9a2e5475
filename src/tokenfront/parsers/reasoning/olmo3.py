"""olmo3: `<think>` / `</think>` written with ordinary vocabulary tokens, split on the text.

Streaming holds text while a chunk ends in (or overlaps) a partial marker, like vLLM's
Olmo3ReasoningBuffer; the end is detected on the token ids `</` (or ` </`), `think`, `>`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tokenfront.parsers.base import DeltaMessage, JSONState, ParseContext, ReasoningParser
from tokenfront.parsers.registry import reasoning_parser

START = "<think>"
END = "</think>"
_FULL = re.compile(r"^(?:<think>)?(?P<reasoning>.*?)</think>(?P<content>.*)$", re.DOTALL)


def _overlap(a: str, b: str) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
    """vLLM's `string_overlap`: the overlapping spans of `a` and `b` (either order)."""
    swap = len(a) >= len(b)
    if swap:
        a, b = b, a
    found: tuple[tuple[int, int], tuple[int, int]] | None = None
    if a in b:
        at = b.index(a)
        found = ((0, len(a)), (at, at + len(a)))
    else:
        for i in range(len(a) - 1, 0, -1):
            if a[-i:] == b[:i]:
                found = ((len(a) - i, len(a)), (0, i))
                break
        else:
            for i in range(len(a) - 1, 0, -1):
                if b[-i:] == a[:i]:
                    found = ((0, i), (len(b) - i, len(b)))
                    break
    if found is None:
        return None, None
    return (found[1], found[0]) if swap else found


def _partial(delta: str, marker: str) -> bool:
    span = _overlap(delta, marker)[1]
    return span is not None and span[1] - span[0] < len(marker)


@reasoning_parser("olmo3")
class Olmo3ReasoningParser(ReasoningParser):
    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        super().__init__(tokenizer, ctx)
        ids: dict[str, int] = {}
        for token in ("Ġ</", "</", "think", ">"):  # vLLM looks each up in the vocabulary
            found = self.vocab_id(token)
            if found is None:
                raise KeyError(token)
            ids[token] = found
        # `</think>` is split: `</` (or `Ġ</`) then `think` and `>`
        self._end_first = [ids["Ġ</"], ids["</"]]
        self._end_rest = [ids["think"], ids[">"]]

    def is_reasoning_end(self, token_ids: Sequence[int]) -> bool:
        first, rest = self._end_first, self._end_rest
        ids = list(token_ids)
        for i in range(len(ids) - len(rest), -1, -1):
            if ids[i + 1 : i + 1 + len(rest)] == rest and ids[i] in first:
                return True
        return False

    def extract_content_ids(self, token_ids: Sequence[int]) -> list[int]:
        return []

    def extract_reasoning(self, text: str) -> tuple[str | None, str | None]:
        match = _FULL.match(text)
        if match:
            return match["reasoning"] or None, match["content"] or None
        return None, text

    def initial_state(self, prompt_token_ids: Sequence[int] | None) -> JSONState:
        return {"buf": "", "content": False, "tail": [], "ended": False}

    @staticmethod
    def _process(state: JSONState) -> DeltaMessage | None:
        buf = state["buf"]
        at = buf.find(START)
        if at >= 0:
            state["content"] = False
            pre, buf = buf[:at], buf[at + len(START) :]
            state["buf"] = buf
            if at > 0:
                return DeltaMessage(content=pre)
        at = buf.rfind(END)
        if at >= 0:
            state["content"] = True
            pre, buf = buf[:at], buf[at + len(END) :]
            state["buf"] = buf
            if at > 0:
                return DeltaMessage(reasoning=pre)
        state["buf"] = ""
        if state["content"]:
            return DeltaMessage(content=buf)
        return DeltaMessage(reasoning=buf)

    def _add(self, state: JSONState, delta_text: str) -> DeltaMessage | None:
        state["buf"] += delta_text
        p_start = _partial(delta_text, START)
        p_end = _partial(delta_text, END)
        if p_start and START in state["buf"] and not p_end:
            return self._process(state)
        if p_end and END in state["buf"]:
            return self._process(state)
        if p_start or p_end:
            return None
        return self._process(state)

    def fallback_content(self, state: JSONState) -> str | None:
        """Content held after `</think>` when the stream ends (one chunk holding the marker and
        the answer); vLLM 0.33.0 loses it, its test_single_delta_preserves_content_after_end_marker
        asserts it is sent."""
        buf = state["buf"]
        if not state["content"] or not buf or _partial(buf, START) or _partial(buf, END):
            return None  # a held marker prefix stays held, as in 0.33.0
        held, state["buf"] = state["buf"], ""
        return held

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> tuple[DeltaMessage | None, bool]:
        delta = self._add(state, delta_text)
        if delta is None and END in state["buf"]:
            delta = self._process(state)
        if not state["ended"]:
            window = list(state["tail"]) + list(delta_ids)
            state["ended"] = self.is_reasoning_end(window)
            state["tail"] = window[-2:]
            if state["ended"] and state["content"] and state["buf"]:
                # The chunk that ends the reasoning also holds content (several tokens per
                # delta): later chunks bypass this parser, so it goes out now (vLLM's
                # test_single_delta_preserves_content_after_end_marker; 0.33.0 loses it).
                delta = delta or DeltaMessage()
                delta.content = (delta.content or "") + state["buf"]
                state["buf"] = ""
        return delta, state["ended"]
