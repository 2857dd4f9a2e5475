"""qwen3: `<think>` reasoning with `<tool_call>` XML calls as the implicit end (seed_oss reuses it)."""

from __future__ import annotations

from functools import cache

from tokenfront.parsers.base import JSONState
from tokenfront.parsers.engines.fences import feed_fences, in_fence, new_fence_state
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

    spec = GrammarSpec(_qwen3, enable_thinking_only)

    def _fresh(self, initial: str) -> JSONState:
        state = super()._fresh(initial)
        state["fc"] = new_fence_state()
        return state

    def _emit(self, st: JSONState, value: str) -> list[tuple[str, str]]:
        if st["st"] == REASONING and value:
            feed_fences(st.setdefault("fc", new_fence_state()), value)
        return super()._emit(st, value)

    def _on_terminal(self, st: JSONState, term: str, value: str) -> list[tuple[str, str]]:
        if st["st"] == REASONING and term == "TOOL_START" and in_fence(st.get("fc") or ["", None]):
            return self._emit(st, value)
        return super()._on_terminal(st, term, value)
