"""inkling: reasoning in `<|content_thinking|>` blocks of Inkling's typed content blocks.

The Inkling grammar (`tools/inkling.py`) with tool parsing skipped. `<|end_message|>` closes
any block, so reasoning only ends when a text or tool block opens (or sampling ends); message
header text is dropped when a block opens. The prompt tail decides where the output starts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tokenfront.parsers.base import JSONState, ParseContext
from tokenfront.parsers.engines.reasoning_grammar import (
    END,
    START,
    TEXT,
    TOOL_STATES,
    Grammar,
    GrammarReasoningParser,
    GrammarSpec,
)
from tokenfront.parsers.engines.tool_span import tool_marker_counts
from tokenfront.parsers.registry import reasoning_parser
from tokenfront.parsers.tools.inkling import (
    CONTENT_TEXT,
    CONTENT_THINKING,
    END_SAMPLING,
    HEADER,
    MESSAGE_MODEL,
    TERMINALS,
    TRANSITIONS,
    inkling_start,
)

_EVENTS = {"reasoning_end": END, "reasoning_start": START, "call_start": "TOOL_CALL_START",
           "call_end": "TOOL_CALL_END", "text": "TEXT_CHUNK"}  # fmt: skip
_STATES = {"CONTENT": TEXT}


def _grammar(thinking: bool) -> Grammar:
    return Grammar(
        terminals={k: (v,) for k, v in TERMINALS.items()},
        transitions={
            (_STATES.get(s, s), t): (_STATES.get(n, n), tuple(_EVENTS[e] for e in events))
            for (s, t), (n, events) in TRANSITIONS.items()
        },
        token_id_terminals={},
        initial_state=HEADER,
        wait_for_reasoning=True,
    )


_GRAMMAR = _grammar(True)


@reasoning_parser("inkling")
class InklingReasoningParser(GrammarReasoningParser):
    spec = GrammarSpec(lambda thinking: _GRAMMAR)

    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        super().__init__(tokenizer, ctx)
        self.start_state = inkling_start(ctx.prompt_token_ids, self.vocab_id, HEADER)

    def is_reasoning_end(self, token_ids: Sequence[int]) -> bool:
        thinking, text = self.vocab_id(CONTENT_THINKING), self.vocab_id(CONTENT_TEXT)
        model, end_sampling = self.vocab_id(MESSAGE_MODEL), self.vocab_id(END_SAMPLING)
        for tid in reversed(list(token_ids)):
            if tid in (thinking, model):
                return False
            if tid in (text, end_sampling):
                return True
        return False

    def extract_content_ids(self, token_ids: Sequence[int]) -> list[int]:
        return list(token_ids)

    def _fresh(self, initial: str) -> JSONState:
        state = super()._fresh(self.start_state if initial == HEADER else initial)
        state["mh"] = ""
        return state

    def _emit(self, st: JSONState, value: str) -> list[tuple[str, str]]:
        if st["st"] == HEADER:
            st["mh"] += value
            return []
        return super()._emit(st, value)

    def _on_terminal(self, st: JSONState, term: str, value: str) -> list[tuple[str, str]]:
        c = self.c
        tr = c.grammar.transitions.get((st["st"], term))
        if st["st"] != HEADER or tr is None:
            return super()._on_terminal(st, term, value)
        nxt, events = tr
        if term in c.tool_terminals and tool_marker_counts(
            st, nxt in TOOL_STATES, term in c.tool_exit_terminals
        ):
            st["mh"] = ""
            st["st"] = TEXT
            if END in events:
                return [(END, value), ("T", value)]
            return [("T", value)]
        header, st["mh"] = st["mh"], ""
        st["st"] = nxt
        out: list[tuple[str, str]] = []
        for event in events:
            if event in (END, START):
                out.append((event, value))
            elif event == "TEXT_CHUNK" and header:
                out.append(("T", header))
        return out

    def _finish_events(self, st: JSONState) -> list[tuple[str, str]]:
        events = super()._finish_events(st)
        if st["st"] == HEADER:
            if st["mh"]:
                events.append(("T", st["mh"]))
                st["mh"] = ""
            st["st"] = TEXT
        return events
