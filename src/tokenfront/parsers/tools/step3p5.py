"""Step-3.5 / Step-5 tool calls: the Qwen3-Coder XML grammar unchanged.

`step3p5` strips trailing reasoning whitespace (the model closes with `\\n</think>\\n`);
`step5` keeps content whitespace around calls as the model wrote it.
"""

from __future__ import annotations

from dataclasses import replace

from tokenfront.parsers.engines.xml_params import MarkupToolParser
from tokenfront.parsers.registry import tool_parser
from tokenfront.parsers.tools.qwen3_coder import function_markup_grammar
from tokenfront.parsers.tools.qwen3_values import fix_qwen3_values

_QWEN3 = function_markup_grammar(
    "step3p5", ("<think>", "</think>"), ("<tool_call>", "</tool_call>")
)
STEP3P5 = replace(_QWEN3, strip_trailing_reasoning_ws=True)
STEP5 = replace(
    _QWEN3,
    name="step5",
    drop_ws_only_content_before_tools=False,
    strip_content_ws_with_tools=False,
)


@tool_parser("step3p5")
class Step3p5ToolParser(MarkupToolParser):
    name = "step3p5"
    grammar = STEP3P5
    supports_required_and_named = False  # structural-tag model (qwen_3_coder) in vLLM

    def convert_args(self, raw: str, partial: bool, name: str) -> str:
        # vLLM's step3p5 test: an object parameter written as a Python literal is decoded
        # (qwen3_coder's typing fixes; docs/deviations.md).
        return fix_qwen3_values(super().convert_args(raw, partial, name), self.tools, name)


@tool_parser("step5")
class Step5ToolParser(MarkupToolParser):
    name = "step5"
    grammar = STEP5
    supports_required_and_named = False
