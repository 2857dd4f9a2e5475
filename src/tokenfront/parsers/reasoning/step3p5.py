"""step3p5: Qwen3 `<think>` reasoning that is always on, trailing reasoning whitespace stripped."""

from __future__ import annotations

from dataclasses import replace
from functools import cache

from tokenfront.parsers.engines.reasoning_grammar import (
    Grammar,
    GrammarReasoningParser,
    GrammarSpec,
    always_on,
)
from tokenfront.parsers.reasoning.qwen3 import xml_call_grammar
from tokenfront.parsers.registry import reasoning_parser


@cache
def _step3p5(thinking: bool) -> Grammar:
    return replace(xml_call_grammar(True), strip_trailing_reasoning_ws=True)


@reasoning_parser("step3p5")
class Step3p5ReasoningParser(GrammarReasoningParser):
    grammar_cached_on_thinking_switch = True
    spec = GrammarSpec(_step3p5, always_on)
