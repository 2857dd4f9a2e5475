"""HY V4 structural tag (vLLM's own builder; only tool_choice required / named are constrained).

`<tool_calls>` then back-to-back `<tool_call>NAME…</tool_call>` blocks, then `</tool_calls>`,
every marker carrying the checkpoint's token suffix (`<tool_call:6124c78e>`). A call's arguments
are `<arg_key>K</arg_key><arg_value>…</arg_value>` pairs: the required keys in order, then any
optional keys in any order; values are free text. A tool without keys takes any text.
"""

from __future__ import annotations

import functools
from typing import Any

from tokenfront.parsers.reasoning.hy_v3 import detect_suffix
from tokenfront.render.structural_tags import Fmt, any_text, const, sequence, tag, with_separator


@functools.lru_cache(maxsize=8)
def token_suffix(tokenizer: Any) -> str:
    """The structural-token suffix of a HY V4 vocabulary (read once per tokenizer)."""
    return detect_suffix(tokenizer)


def _argument_keys(parameters: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(required, optional) keys in declaration order; required keys missing from the
    properties still count."""
    properties = parameters.get("properties") or {}
    required = parameters.get("required") or []
    wanted = set(required)
    first = [key for key in properties if key in wanted]
    first += [key for key in required if key not in properties]
    return first, [key for key in properties if key not in wanted]


def hy_v4(tools: list[tuple[str, Any]], choice: str, suffix: str) -> Fmt:
    """The call block for `choice` "required" or "forced" (the one named tool)."""

    def pair(key: str) -> Fmt:
        return sequence(
            [
                const(f"<arg_key{suffix}>"),
                const(key),
                const(f"</arg_key{suffix}>"),
                const(f"<arg_value{suffix}>"),
                any_text(),
                const(f"</arg_value{suffix}>"),
            ]
        )

    def call(name: str, parameters: Any) -> Fmt:
        required, optional = _argument_keys(parameters if isinstance(parameters, dict) else {})
        elements = [pair(key) for key in required]
        if optional:
            pairs = [pair(key) for key in optional]
            elements.append(
                {"type": "star", "content": pairs[0] if len(pairs) == 1 else {"type": "or", "elements": pairs}}
            )
        content = sequence(elements) if elements else any_text()
        return tag(f"<tool_call{suffix}>{name}", content, f"</tool_call{suffix}>")

    calls = with_separator(
        [call(name, parameters) for name, parameters in tools],
        "",
        at_least_one=True,
        stop_after_first=choice == "forced",
    )
    return sequence([const(f"<tool_calls{suffix}>"), calls, const(f"</tool_calls{suffix}>")])
