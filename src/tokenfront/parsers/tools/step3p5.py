"""Step-3.5 / Step-5 tool calls: the Qwen3-Coder XML grammar unchanged.

`step3p5` strips trailing reasoning whitespace (the model closes with `\\n</think>\\n`);
`step5` keeps content whitespace around calls as the model wrote it.
"""

from __future__ import annotations

from dataclasses import replace

from tokenfront.parsers.base import ExtractedToolCalls, JSONState
from tokenfront.parsers.engines.xml_params import MarkupToolParser
from tokenfront.parsers.registry import tool_parser
from tokenfront.parsers.tools.qwen3_coder import function_markup_grammar
from tokenfront.parsers.tools.qwen3_values import fix_qwen3_values

_QWEN3 = function_markup_grammar(
    "step3p5", ("<think>", "</think>"), ("<tool_call>", "</tool_call>")
)
STEP3P5 = replace(_QWEN3, strip_trailing_reasoning_ws=True)
_CALL_END = "</tool_call>"
STEP5 = replace(
    _QWEN3,
    name="step5",
    drop_ws_only_content_before_tools=False,
    strip_content_ws_with_tools=False,
)


@tool_parser("step3p5")
class Step3p5ToolParser(MarkupToolParser):
    grammar_cached_on_thinking_switch = True
    name = "step3p5"
    grammar = STEP3P5
    supports_required_and_named = False  # structural-tag model (qwen_3_coder) in vLLM
    forced_json_unless_strict = True

    def convert_args(self, raw: str, partial: bool, name: str) -> str:
        # vLLM's step3p5 test: an object parameter written as a Python literal is decoded
        # (qwen3_coder's typing fixes; docs/deviations.md).
        return fix_qwen3_values(super().convert_args(raw, partial, name), self.tools, name)

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        """One-shot content also keeps the text between calls, as streaming sends it (vLLM's
        step3p5 test; 0.33.0 keeps only the text before the first call: docs/deviations.md)."""
        info = super().extract_tool_calls(text)
        first, last = text.find(_CALL_END), text.rfind(_CALL_END)
        if not info.tools_called or first == last:
            return info
        before = self._streamed_content(text[: first + len(_CALL_END)])
        through = self._streamed_content(text[: last + len(_CALL_END)])
        between = through[len(before) :] if through.startswith(before) else ""
        if not between.strip():
            return info
        return ExtractedToolCalls(True, info.tool_calls, (info.content or "") + between)

    def _streamed_content(self, text: str) -> str:
        state: JSONState = {}
        deltas = [self.stream(state, text, ()), self.finish(state)]
        return "".join(d.content or "" for d in deltas if d is not None)


@tool_parser("step5")
class Step5ToolParser(MarkupToolParser):
    grammar_cached_on_thinking_switch = True
    name = "step5"
    grammar = STEP5
    supports_required_and_named = False
    forced_json_unless_strict = True
