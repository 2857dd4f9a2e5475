"""mimo: the Qwen3 `<think>` reasoning grammar (ChatML turns, `enable_thinking` switch)."""

from __future__ import annotations

from tokenfront.parsers.engines.reasoning_grammar import (
    GrammarReasoningParser,
    GrammarSpec,
    enable_thinking_only,
)
from tokenfront.parsers.reasoning.qwen3 import _qwen3
from tokenfront.parsers.registry import reasoning_parser


@reasoning_parser("mimo")
class MiMoReasoningParser(GrammarReasoningParser):
    grammar_cached_on_thinking_switch = True
    spec = GrammarSpec(_qwen3, enable_thinking_only)
