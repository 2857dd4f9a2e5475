"""Constrained output under a reasoning parser that reads unmarked text as reasoning.

A request whose output a structured-output constraint shapes (a JSON `response_format`, or
`structured_outputs` with a JSON / regex / choice / grammar constraint) gets machine output:
such a parser reads it as content, unless it opens with an explicit think block
(vLLM's kimi_k2 reasoning tests, after 0.33.0; docs/deviations.md).
"""

from __future__ import annotations

from typing import Literal

from tokenfront.parsers.base import ParseContext

_JSON_FORMATS = frozenset({"json_object", "json_schema"})
_CONSTRAINTS = ("json", "regex", "choice", "grammar", "json_object")

Opening = Literal["hold", "think", "content"]


def constrained_output(ctx: ParseContext) -> bool:
    """Whether the request constrains the output to a machine format (structural tags and
    `response_format` text do not)."""
    response_format = ctx.extra.get("response_format")
    if isinstance(response_format, dict) and response_format.get("type") in _JSON_FORMATS:
        return True
    constraint = ctx.extra.get("structured_outputs")
    return isinstance(constraint, dict) and any(
        constraint.get(key) not in (None, False) for key in _CONSTRAINTS
    )


def read_opening(text: str, think_start: str, think_end: str) -> Opening:
    """How constrained output that begins with `text` reads: "think" once it opens with
    `think_start` and goes on, "hold" while (leading whitespace aside) it may still become
    either marker, else "content". An output that ends while held is content."""
    head = text.lstrip()
    if not head or think_start.startswith(head) or think_end.startswith(head):
        return "hold"
    return "think" if head.startswith(think_start) else "content"
