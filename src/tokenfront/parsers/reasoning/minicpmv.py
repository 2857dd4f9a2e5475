"""minicpmv: the Qwen3 grammar plus MiniCPM-V markers, thinking by `enable_thinking` (default on).

`<|im_end|>` and the reserved markers (`<reserved_12>`..`<reserved_15>` as text, `<|reserved_N|>`
as tokens) are dropped. With thinking off the model answers directly: a stray
`<think>...</think>` is dropped rather than returned as reasoning.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from functools import cache

from tokenfront.parsers.base import DeltaMessage, JSONState
from tokenfront.parsers.engines.reasoning_grammar import (
    REASONING,
    TEXT,
    Grammar,
    GrammarReasoningParser,
    GrammarSpec,
    enable_thinking_only,
)
from tokenfront.parsers.reasoning.qwen3 import xml_call_grammar
from tokenfront.parsers.registry import reasoning_parser

_RESERVED = range(12, 16)


@cache
def _minicpmv(thinking: bool) -> Grammar:
    base = xml_call_grammar(thinking, boundaries=frozenset())
    terminals = dict(base.terminals)
    ids = dict(base.token_id_terminals)
    transitions = dict(base.transitions)
    if not thinking:
        transitions[(TEXT, "THINK_START")] = (REASONING, ())
    terminals["IM_END"] = ("<|im_end|>",)
    ids["IM_END"] = "<|im_end|>"
    for i in _RESERVED:
        terminals[f"RESERVED_TEXT_{i}"] = (f"<reserved_{i}>",)
        terminals[f"RESERVED_TOKEN_{i}"] = (f"<|reserved_{i}|>",)
        ids[f"RESERVED_TOKEN_{i}"] = f"<|reserved_{i}|>"
    for state in (TEXT, REASONING):
        for name in terminals:
            if name == "IM_END" or name.startswith("RESERVED_"):
                transitions[(state, name)] = (state, ())
    return replace(
        base,
        terminals=terminals,
        token_id_terminals=ids,
        transitions=transitions,
    )


_MARKERS = ("<|im_end|>",) + tuple(
    m for i in _RESERVED for m in (f"<reserved_{i}>", f"<|reserved_{i}|>")
)


_MARKER_RE = re.compile("|".join(re.escape(m) for m in _MARKERS))
_LONGEST_MARKER = max(map(len, _MARKERS))


def _drop_markers(state: JSONState, text: str, *, final: bool) -> str:
    """Post-reasoning text without the dropped markers, a possible marker start held back in
    `state["_held_marker"]` (released at the end)."""
    pending = state.get("_held_marker", "") + text
    pieces: list[str] = []
    last = 0
    for found in _MARKER_RE.finditer(pending):
        pieces.append(pending[last : found.start()])
        last = found.end()
    hold = len(pending)
    if not final:  # the first `<` of the tail that a later chunk may complete into a marker
        at = pending.find("<", max(last, len(pending) - _LONGEST_MARKER + 1))
        while at != -1:
            rest = pending[at:]
            if any(m.startswith(rest) for m in _MARKERS):
                hold = at
                break
            at = pending.find("<", at + 1)
    pieces.append(pending[last:hold])
    state["_held_marker"] = pending[hold:]
    return "".join(pieces)


@reasoning_parser("minicpmv")
class MiniCPMVReasoningParser(GrammarReasoningParser):
    grammar_cached_on_thinking_switch = True
    spec = GrammarSpec(_minicpmv, enable_thinking_only, plain_when_off=False)

    def is_reasoning_end(self, token_ids: Sequence[int]) -> bool:
        return True if not self.thinking else super().is_reasoning_end(token_ids)

    def extract_reasoning(self, text: str) -> tuple[str | None, str | None]:
        reasoning, content = super().extract_reasoning(text)
        return (reasoning, content) if self.thinking else (None, content)

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> tuple[DeltaMessage | None, bool]:
        delta, ended = super().stream(state, delta_text, delta_ids)
        return self._drop_reasoning(delta), ended

    def finish(self, state: JSONState) -> DeltaMessage | None:
        return self._drop_reasoning(super().finish(state))

    def content_after_reasoning(self, state: JSONState, text: str) -> str | None:
        """Pipeline hook (no tool parser). With thinking off the reasoning counts as ended from
        the prompt, so vLLM 0.33.0 streams the text unparsed; its test_minicpmv_reasoning.py
        (`test_streaming_split_*_markers`) drops a `<think>` block and the reserved markers as
        one-shot parsing does, so the grammar still runs over the content here."""
        if self.thinking:
            # vLLM 0.33.0 streams it unparsed; test_minicpmv_reasoning.py::TestThinking::
            # test_reserved_markers_are_removed drops them in one-shot parsing.
            return _drop_markers(state, text, final=False) or None
        delta = self._drop_reasoning(super().stream(state, text, [])[0])
        return delta.content if delta is not None else None

    def content_after_reasoning_flush(self, state: JSONState) -> str | None:
        if not self.thinking:
            return None
        return _drop_markers(state, "", final=True) or None

    def _drop_reasoning(self, delta: DeltaMessage | None) -> DeltaMessage | None:
        if self.thinking or delta is None:
            return delta
        delta.reasoning = None
        return delta if delta.content is not None or delta.tool_calls else None


# ---- escaped-newline recovery (vLLM's MiniCPM-V serving parser) ---------------------------
# MiniCPM-V sometimes writes a newline as the two characters `\n`. Outside code spans, inline
# code, LaTeX spans and doubled backslashes they become real newlines; a half-seen escape or
# span opener is held until the next chunk so streamed output matches the one-shot result.

_SPANS = (("```", "```"), ("`", "`"), ("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"))


def _recover(st: JSONState, text: str, final: bool) -> str:
    """Advance one channel's state {"close": marker or None, "pending": str} over `text`."""
    text = st["pending"] + text
    st["pending"] = ""
    out: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        rest = text[i:]
        close = st["close"]
        if close is not None:
            if rest.startswith(close):
                out.append(close)
                i += len(close)
                st["close"] = None
            elif not final and close.startswith(rest):
                st["pending"] = rest
                break
            else:
                out.append(text[i])
                i += 1
            continue
        ch = text[i]
        if ch == "`" or ch == "$":
            if not final and rest in ("`", "``", "$"):
                st["pending"] = rest
                break
            opener = (
                ch * 3
                if ch == "`" and rest.startswith("```")
                else ch * 2
                if ch == "$" and rest.startswith("$$")
                else ch
            )
            out.append(opener)
            i += len(opener)
            st["close"] = opener
            continue
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        j = i + 1
        while j < n and text[j] == "\\":
            j += 1
        if j - i > 1:
            if not final and j == n:
                st["pending"] = text[i:j]
                break
            out.append(text[i:j])
            i = j
            continue
        if not final and rest in ("\\", "\\r", "\\r\\"):
            st["pending"] = rest
            break
        if rest.startswith("\\r\\n"):
            out.append("\n")
            i += 4
        elif rest.startswith(("\\n", "\\r")):
            out.append("\n")
            i += 2
        elif rest.startswith(("\\(", "\\[")):
            opener = rest[:2]
            out.append(opener)
            i += 2
            st["close"] = dict(_SPANS)[opener]
        else:
            out.append("\\")
            i += 1
    if final and st["pending"]:
        out.append(st["pending"])
        st["pending"] = ""
    return "".join(out)


def recover_newlines(text: str | None) -> str | None:
    if text is None or "\\" not in text:
        return text
    return _recover({"close": None, "pending": ""}, text, True)


class MiniCPMVOutputNormalizer:
    """Looked up by the pipeline as `output_normalizer` on the reasoning parser class."""

    @staticmethod
    def message(reasoning: str | None, content: str | None) -> tuple[str | None, str | None]:
        return recover_newlines(reasoning), recover_newlines(content)

    @staticmethod
    def initial_state() -> JSONState:
        return {"r": {"close": None, "pending": ""}, "c": {"close": None, "pending": ""}}

    @staticmethod
    def delta(st: JSONState, delta: DeltaMessage | None, finished: bool) -> DeltaMessage | None:
        reasoning_done = finished or (
            delta is not None and (delta.content is not None or bool(delta.tool_calls))
        )
        reasoning = _recover(st["r"], (delta.reasoning or "") if delta else "", reasoning_done)
        content = _recover(st["c"], (delta.content or "") if delta else "", finished)
        if delta is None:
            if not reasoning and not content:
                return None
            return DeltaMessage(reasoning=reasoning or None, content=content or None)
        delta.reasoning = reasoning or None
        delta.content = content or None
        if not delta.content and not delta.reasoning and not delta.tool_calls:
            return None
        return delta


MiniCPMVReasoningParser.output_normalizer = MiniCPMVOutputNormalizer  # type: ignore[attr-defined]
