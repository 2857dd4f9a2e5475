"""qwen3: `<think>` reasoning with `<tool_call>` XML calls as the implicit end (seed_oss reuses it)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import ClassVar

from tokenfront.parsers.base import DeltaMessage, JSONState
from tokenfront.parsers.engines.fences import feed_fences, in_fence, new_fence_state
from tokenfront.parsers.engines.markup_lexer import CONTENT
from tokenfront.parsers.engines.reasoning_grammar import (
    END,
    REASONING,
    TEXT,
    Grammar,
    GrammarReasoningParser,
    GrammarSpec,
    enable_thinking_only,
)
from tokenfront.parsers.registry import reasoning_parser

PRE, NAME, ARGS, BETWEEN = "TOOL_PREAMBLE", "TOOL_NAME", "TOOL_ARGS", "TOOL_BETWEEN"
CALL_START, CALL_END, ARG = "TOOL_CALL_START", "TOOL_CALL_END", "ARG_VALUE_CHUNK"
_ANSWER = "ANSWER"  # one-shot event: the answer text after `</think>` starts here


def xml_call_grammar(
    thinking: bool,
    *,
    think: tuple[str, str] = ("<think>", "</think>"),
    tool: tuple[str, str] = ("<tool_call>", "</tool_call>"),
    boundaries: frozenset[str] = frozenset(("<|im_start|>", "<|im_end|>")),
) -> Grammar:
    """The Qwen3 XML tool-call grammar (`<function=NAME>` / `<parameter=KEY>`)."""
    terminals: dict[str, tuple[str, ...]] = {
        "THINK_START": (think[0],),
        "THINK_END": (think[1],),
        "TOOL_START": (tool[0],),
        "TOOL_END": (tool[1],),
        "FUNC_PREFIX": ("<function=",),
        "FUNC_END": ("</function>",),
        "PARAM_START": ("<parameter=",),
        "PARAM_END": ("</parameter>",),
        "CLOSE_ANGLE": (">",),
    }
    rows = [
        (REASONING, "THINK_START", REASONING, ()),
        (REASONING, "THINK_END", TEXT, (END,)),
        (TEXT, "THINK_END", TEXT, ()),
        (REASONING, "TOOL_START", PRE, (END, CALL_START)),
        (TEXT, "TOOL_START", PRE, (END, CALL_START)),
        (TEXT, "FUNC_PREFIX", NAME, (CALL_START,)),
        (PRE, "TOOL_END", TEXT, (CALL_END,)),
        (PRE, "FUNC_PREFIX", NAME, ()),
        (NAME, "CLOSE_ANGLE", ARGS, ()),
        (NAME, "FUNC_END", BETWEEN, (CALL_END,)),
        (NAME, "TOOL_END", TEXT, (CALL_END,)),
        (NAME, "TOOL_START", PRE, (CALL_END, CALL_START)),
        (NAME, "FUNC_PREFIX", NAME, (CALL_END, CALL_START)),
        (ARGS, "FUNC_END", BETWEEN, (CALL_END,)),
        (ARGS, "FUNC_PREFIX", NAME, (CALL_END, CALL_START)),
        (ARGS, "PARAM_START", ARGS, (ARG,)),
        (ARGS, "PARAM_END", ARGS, (ARG,)),
        (BETWEEN, "TOOL_END", TEXT, ()),
        (BETWEEN, "TOOL_START", PRE, (CALL_START,)),
        (BETWEEN, "FUNC_PREFIX", NAME, (CALL_START,)),
    ]
    return Grammar(
        terminals=terminals,
        transitions={(s, t): (n, e) for s, t, n, e in rows},
        token_id_terminals={
            "THINK_START": think[0],
            "THINK_END": think[1],
            "TOOL_START": tool[0],
            "TOOL_END": tool[1],
        },
        initial_state=REASONING if thinking else TEXT,
        wait_for_reasoning=thinking,
        turn_boundaries=boundaries,
        strip_trailing_reasoning_ws=False,
    )


@cache
def _qwen3(thinking: bool) -> Grammar:
    return xml_call_grammar(thinking)


@reasoning_parser("qwen3")
class Qwen3ReasoningParser(GrammarReasoningParser):
    """Qwen3 reasoning; a `<tool_call>` inside a fenced code example in the reasoning stays
    reasoning text instead of ending it (vLLM's
    tests/parser/engine/test_qwen3_fenced_examples.py::TestReasoningChannel, past vLLM
    0.33.0; docs/deviations.md). `</think>` still ends the reasoning inside a fence."""
    grammar_cached_on_thinking_switch = True

    spec = GrammarSpec(_qwen3, enable_thinking_only)
    # A `<tool_call>` that may be quoted (`_may_be_quoted`) ends it only when the next
    # non-space text opens markup (`<`) or JSON (`{`); a quoted marker followed by prose
    # stays reasoning (tests/parser/engine/test_qwen3_reasoning.py,
    # past vLLM 0.33.0; docs/deviations.md). Elsewhere it ends the reasoning at once, as in
    # vLLM 0.33.0.
    quoted_call_stays_reasoning: ClassVar[bool] = True
    # One-shot, the answer after a `</think>` that follows a call written in the reasoning
    # goes before that call (_one_shot_order).
    answer_before_promoted_call: ClassVar[bool] = True

    def _fresh(self, initial: str) -> JSONState:
        state = super()._fresh(initial)
        state["fc"] = new_fence_state()
        state["tp"] = None  # [marker, spaces after it]: a `<tool_call>` not decided yet
        return state

    def _process(self, st: JSONState, tokens: list[tuple[str, str]]) -> list[tuple[str, str]]:
        if not self.quoted_call_stays_reasoning:
            return super()._process(st, tokens)
        events: list[tuple[str, str]] = []
        for term, value in tokens:
            held = st.get("tp")
            if held is not None:
                rest = value.lstrip() if term == CONTENT else value
                if not rest:
                    held[1] += value
                    continue
                events.extend(self._decide_call(st, rest[0] in "<{"))
            events.extend(super()._process(st, [(term, value)]))
        return events

    def _may_be_quoted(self, last_char: str | None) -> bool:
        """A `<tool_call>` right after a backtick may quote it; so may one opening the
        reasoning, but only where vLLM's one engine reads reasoning and tool calls together
        (an engine tool parser: the test streams qwen3 with qwen3_coder / qwen3_xml); beside
        hermes or no tool parser it ends the reasoning at once, as in vLLM 0.33.0."""
        if last_char == "`":
            return True
        paired = self.paired_tool
        return last_char is None and paired is not None and paired.engine_based

    def _decide_call(self, st: JSONState, opens: bool) -> list[tuple[str, str]]:
        marker, spaces = st["tp"]
        st["tp"] = None
        if not opens:
            st["kr"] = st.get("kr", 0) + 1
            return self._emit(st, marker + spaces)
        st["ic"] = True
        events = super()._on_terminal(st, "TOOL_START", marker)
        return events + (self._emit(st, spaces) if spaces else [])

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> tuple[DeltaMessage | None, bool]:
        prior, kept = state.get("tp") is not None, state.get("tpi") or []
        state["kr"] = 0  # `<tool_call>` markers of this chunk kept as reasoning text
        out = super().stream(state, delta_text, delta_ids)
        state["tpo"] = []
        if state.get("tp") is None:
            state["tpi"] = []
            if prior and out[1]:  # the held marker opened a call: its ids go to the tool parser
                state["tpo"] = kept
            elif out[1] and state.get("ic"):
                state["tpo"] = self._call_ids_before_content(delta_ids, state["kr"])
        elif prior:
            state["tpi"] = kept + list(delta_ids)
        else:
            markers = self.c.end_ids - {self.c.end_id}  # the `<tool_call>` id
            ids = list(delta_ids)
            at = next((i for i, tid in enumerate(ids) if tid in markers), len(ids))
            state["tpi"] = ids[at:]
        return out

    def _call_ids_before_content(self, delta_ids: Sequence[int], kept: int) -> list[int]:
        """This chunk's ids from the `<tool_call>` that opened a call (ending the reasoning)
        up to where `extract_content_ids` starts: a later `</think>` in the same chunk must
        not cut the call off from the tool parser (the whole output in one chunk)."""
        ids = list(delta_ids)
        markers = self.c.end_ids - {self.c.end_id}
        found = [i for i, tid in enumerate(ids) if tid in markers]
        if len(found) <= kept:
            return []
        stop = len(ids) - len(self.extract_content_ids(ids))
        return ids[found[kept] : stop] if found[kept] < stop else []

    def held_content_ids(self, state: JSONState) -> list[int]:
        """Pipeline hook: token ids of a `<tool_call>` held in earlier chunks that opened a call."""
        return list(state.get("tpo") or [])

    def ends_at_finish(self, state: JSONState) -> bool:
        """Pipeline hook: a `<tool_call>` still held when the output ends opens a call."""
        return self.quoted_call_stays_reasoning and state.get("tp") is not None

    def content_after_reasoning(self, st: JSONState, text: str) -> str | None:
        """Pipeline hook (no tool parser): the content after the reasoning through the grammar,
        so a repeated `</think>` is dropped when streamed as it is one-shot (vLLM 0.33.0 keeps
        it in the stream; tests/parser/engine/test_qwen3_reasoning.py
        `test_streaming_duplicate_think_end_absorbed`)."""
        if not self.quoted_call_stays_reasoning:
            return text or None
        if not text:
            return text
        st["st"] = TEXT  # the reasoning is over (the prompt may have closed it)
        return "".join(v for k, v in self._feed(st, text) if k == "T") or None

    def text_for_tool_parser(self, st: JSONState, text: str) -> str:
        """A repeated `</think>` is dropped before the tool parser too, as one-shot drops it
        (one token in Qwen's vocabulary, so never split across chunks: nothing is held)."""
        if not self.quoted_call_stays_reasoning:
            return text
        return text.replace("</think>", "")

    def ids_for_tool_parser(self, st: JSONState, token_ids: list[int]) -> list[int]:
        end_id = self.c.end_id
        if not self.quoted_call_stays_reasoning or end_id not in token_ids:
            return token_ids
        return [tid for tid in token_ids if tid != end_id]

    def content_after_reasoning_flush(self, st: JSONState) -> str | None:
        if not self.quoted_call_stays_reasoning:
            return None
        tokens = self.c.lexer.flush(st["buf"])
        st["buf"] = ""
        return "".join(v for k, v in self._process(st, tokens) if k == "T") or None

    def _finish_events(self, st: JSONState) -> list[tuple[str, str]]:
        if not self.quoted_call_stays_reasoning:
            return super()._finish_events(st)
        tokens = self.c.lexer.flush(st["buf"])
        st["buf"] = ""
        events = self._process(st, tokens)
        if st.get("tp") is not None:  # the output ends after the marker: a call, as in 0.33.0
            events.extend(self._decide_call(st, True))
        return events + super()._finish_events(st)

    def _emit(self, st: JSONState, value: str) -> list[tuple[str, str]]:
        if st["st"] == REASONING and value:
            feed_fences(st.setdefault("fc", new_fence_state()), value)
            st["lc"] = value[-1]
        return super()._emit(st, value)

    def _one_shot_order(self, events: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """A call written inside `<think>` ends the reasoning; the answer text after a later
        `</think>` goes before the call in the content, so a tool parser that keeps only the
        text before the calls keeps it (vLLM's
        tests/reasoning/test_qwen3_tool_call_recovery.py, past vLLM 0.33.0, which keeps the
        call first; docs/deviations.md). Streams send that text after the call, as before."""
        at = next((i for i, (k, _) in enumerate(events) if k == _ANSWER), None)
        if at is None:
            return events
        first = next(i for i, (k, _) in enumerate(events) if k == END)  # the call that ended it
        stop = next((i for i in range(at, len(events)) if events[i][0] == END), len(events))
        return events[:first] + events[at:stop] + events[first:at] + events[stop:]

    def _on_terminal(self, st: JSONState, term: str, value: str) -> list[tuple[str, str]]:
        if (
            term == "THINK_END"
            and self.answer_before_promoted_call
            and st.get("once")
            and st.get("ic")
            and st["st"] == TEXT
        ):
            if not st["span"] and not st.get("ia"):  # the first `</think>` after the call
                st["ia"] = True
                return [(_ANSWER, "")]
        if st["st"] == REASONING and term == "TOOL_START":
            if in_fence(st.get("fc") or ["", None]):
                st["kr"] = st.get("kr", 0) + 1
                return self._emit(st, value)
            if self.quoted_call_stays_reasoning and self._may_be_quoted(st.get("lc")):
                st["tp"] = [value, ""]  # decided by the text after it (_process)
                return []
            st["ic"] = True
        return super()._on_terminal(st, term, value)
