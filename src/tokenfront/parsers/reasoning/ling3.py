"""ling3: `<think>` reasoning with `<tool_call>` as the implicit end (the GLM-4.7 grammar).

Thinking is on unless `thinking` / `enable_thinking` is given and falsy.
"""

from __future__ import annotations

from tokenfront.parsers.engines.reasoning_grammar import (
    Grammar,
    GrammarReasoningParser,
    GrammarSpec,
    think_toggle_default_on,
)
from tokenfront.parsers.reasoning.glm45 import _glm
from tokenfront.parsers.registry import reasoning_parser


def _ling3(thinking: bool) -> Grammar:
    return _glm(thinking)


@reasoning_parser("ling3")
class Ling3ReasoningParser(GrammarReasoningParser):
    spec = GrammarSpec(_ling3, think_toggle_default_on)
