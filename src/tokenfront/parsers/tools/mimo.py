"""MiMo tool calls: the Qwen3-Coder XML grammar with verbatim (untrimmed) parameter values.

<tool_call>
<function=NAME>
<parameter=KEY>VALUE</parameter>
</function>
</tool_call>
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tokenfront.parsers.engines.xml_args import EqualsParamCodec, OpenValue, _end_window, _escape
from tokenfront.parsers.engines.xml_params import MarkupToolParser
from tokenfront.parsers.registry import tool_parser
from tokenfront.parsers.tools.qwen3_coder import function_markup_grammar


class VerbatimEqualsParamCodec(EqualsParamCodec):
    """`<parameter=NAME>VALUE</parameter>` with the value kept exactly as written."""

    @staticmethod
    def _trim(value: str) -> str:
        return value

    def open_value(self, raw: str) -> OpenValue | None:
        state = super().open_value(raw)
        if state is not None:
            state["held"] = ""
            state["started"] = True
        return state

    def extend(self, state: OpenValue, delta: str) -> str | None:
        text: Any = state["window"] + delta
        if self._value_end.search(text):
            return None
        state["window"] = _end_window(text, self._value_end)
        return _escape(delta)


MIMO = replace(
    function_markup_grammar("mimo", ("<think>", "</think>"), ("<tool_call>", "</tool_call>")),
    codec=VerbatimEqualsParamCodec(),
)


@tool_parser("mimo")
class MiMoToolParser(MarkupToolParser):
    grammar_cached_on_thinking_switch = True
    name = "mimo"
    grammar = MIMO
    supports_required_and_named = False  # structural-tag model in vLLM
    forced_json_unless_strict = True
