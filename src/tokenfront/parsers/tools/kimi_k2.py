"""`kimi_k2`: `<|tool_calls_section_begin|>` + calls
`<|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{json}<|tool_call_end|>`.

The call id is the header itself (`functions.NAME:IDX`); text after the section is dropped.
A header that is only a counter (`<|tool_call_begin|>0 <|tool_call_argument_begin|>`) calls
the request's only tool, or the only one whose properties hold every argument key; the id is
the counter. vLLM 0.33.0 makes no call of it; its tests (test_kimi_k2_tool_parser.py
`test_bare_counter*`) infer the name (docs/deviations.md).
"""

from __future__ import annotations

import re

from tokenfront.parsers.engines.section_calls import SectionToolParser
from tokenfront.parsers.registry import tool_parser


@tool_parser("kimi_k2")
class KimiK2ToolParser(SectionToolParser):
    name = "kimi_k2"
    forced_json_unless_strict = True  # a structural-tag model in vLLM
    bare_header_regex = re.compile(r":?\d+")
    # Deviation from vLLM 0.33.0 (docs/deviations.md): streamed arguments equal the one-shot
    # ones when the schema retypes a value (tests/parser/engine/test_kimi_k2_streaming.py).
    retype_streamed_args = True
    # tool_choice "none" / no request tools: the text after `<|tool_calls_section_begin|>` is
    # kept (vLLM #55080; the issue-8 kimi_k2 class, docs/deviations.md)
    keeps_text_without_tool_choice = True
    # ... except a section holding nothing, dropped as 0.33.0 does
    # (tests/parser/engine/test_replay.py::TestReplay::test_replay[kimi_k2-empty-tool-block])
    empty_section = (SectionToolParser.section_start, SectionToolParser.section_end)

    def wants_special_tokens(self) -> bool:
        """vLLM's adjust_request: keep special tokens when tools are given and not 'none'."""
        return bool(self.ctx.tools) and self.ctx.tool_choice != "none"
