"""`deepseek_v31`: `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>ARGUMENTS<｜tool▁call▁end｜>`.

Only the text before the calls section is content.
"""

from __future__ import annotations

import re

from tokenfront.parsers.base import ExtractedToolCalls
from tokenfront.parsers.engines.separated_calls import MarkerRegexToolParser
from tokenfront.parsers.engines.separated_scan import CallFormat
from tokenfront.parsers.registry import tool_parser


@tool_parser("deepseek_v31")
class DeepSeekV31ToolParser(MarkerRegexToolParser):
    name = "deepseek_v31"
    supports_required_and_named = False
    forced_json_unless_strict = True
    # vLLM's regexes, the contract; `call_format` reads the same groups in linear time.
    call_regex = re.compile(
        r"<｜tool▁call▁begin｜>(?P<name>.*?)<｜tool▁sep｜>(?P<arguments>[\s\S]*?)<｜tool▁call▁end｜>"
    )
    portion_regex = re.compile(r"(?P<name>.*)<｜tool▁sep｜>(?P<arguments>[\s\S]*)")
    name_regex = re.compile(r"(?P<name>.*)<｜tool▁sep｜>")
    call_format = CallFormat(
        begin="<｜tool▁call▁begin｜>", sep="<｜tool▁sep｜>", end="<｜tool▁call▁end｜>"
    )
    content_after_calls = False
    model_label = "DeepSeek-V3.1"
    # Deviations from vLLM 0.33.0, streamed like the one-shot override below.
    unparsable_block_is_content = True
    stray_call_end_ignored = True

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        result = super().extract_tool_calls(text)
        if result.tools_called and not result.tool_calls:
            # Deviation from vLLM 0.33.0 (docs/deviations.md): a calls-begin token with no
            # parsable call is no tool call and the whole output stays content
            # (tests/tool_parsers/test_deepseekv31_tool_parser.py::
            # test_extract_tool_calls_unparsable_block).
            return ExtractedToolCalls(False, [], text)
        return result
