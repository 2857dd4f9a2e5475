"""deepseek_v4 / deepseek_v41: `<think>` reasoning; a DSML tool block ends it implicitly."""

from __future__ import annotations

from functools import cache

from tokenfront.parsers.engines.reasoning_grammar import (
    END,
    REASONING,
    START,
    Grammar,
    GrammarReasoningParser,
    GrammarSpec,
)
from tokenfront.parsers.registry import reasoning_parser
from tokenfront.parsers.tools.deepseek_dsml import V4, V41, Dialect, thinking_from_kwargs

_EVENTS = {"start": START, "end": END, "call": "TOOL_CALL_START", "close": "TOOL_CALL_END"}


def _grammar(dialect: Dialect, thinking: bool) -> Grammar:
    return Grammar(
        terminals={k: (v,) for k, v in dialect.terminals().items()},
        transitions={
            (s, t): (n, tuple(_EVENTS[e] for e in events))
            for s, t, n, events in dialect.rows(thinking)
        },
        token_id_terminals=dialect.token_terminals(),
        initial_state=REASONING if thinking else "CONTENT",
        wait_for_reasoning=thinking,
    )


@cache
def _v4(thinking: bool) -> Grammar:
    return _grammar(V4, thinking)


@cache
def _v41(thinking: bool) -> Grammar:
    return _grammar(V41, thinking)


@reasoning_parser("deepseek_v4")
class DeepSeekV4ReasoningParser(GrammarReasoningParser):
    spec = GrammarSpec(_v4, thinking_from_kwargs, plain_when_off=False)


@reasoning_parser("deepseek_v41")
class DeepSeekV41ReasoningParser(GrammarReasoningParser):
    spec = GrammarSpec(_v41, thinking_from_kwargs, plain_when_off=False)
