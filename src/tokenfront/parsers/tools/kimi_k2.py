"""`kimi_k2`: `<|tool_calls_section_begin|>` + calls
`<|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{json}<|tool_call_end|>`.

The call id is the header itself (`functions.NAME:IDX`); text after the section is dropped.
"""

from __future__ import annotations

from tokenfront.parsers.engines.separated_calls import SectionToolParser
from tokenfront.parsers.registry import tool_parser


@tool_parser("kimi_k2")
class KimiK2ToolParser(SectionToolParser):
    name = "kimi_k2"

    def wants_special_tokens(self) -> bool:
        """vLLM's adjust_request: keep special tokens when tools are given and not 'none'."""
        return bool(self.ctx.tools) and self.ctx.tool_choice != "none"
