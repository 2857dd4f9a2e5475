"""step3: everything up to `</think>` is reasoning."""

from __future__ import annotations

from tokenfront.parsers.engines.reasoning_tokens import EndOnlyParser
from tokenfront.parsers.registry import reasoning_parser


@reasoning_parser("step3")
class Step3ReasoningParser(EndOnlyParser):
    pass
