"""`deepseek_v3`: `<｜tool▁call▁begin｜>TYPE<｜tool▁sep｜>NAME` + a ```json fenced body.

Text before the calls section and after its end marker is content.
"""

from __future__ import annotations

import re

from tokenfront.parsers.engines.separated_calls import MarkerRegexToolParser
from tokenfront.parsers.engines.separated_scan import CallFormat
from tokenfront.parsers.registry import tool_parser


@tool_parser("deepseek_v3")
class DeepSeekV3ToolParser(MarkerRegexToolParser):
    name = "deepseek_v3"
    supports_required_and_named = False
    forced_json_unless_strict = True
    # vLLM's regexes, the contract; `call_format` reads the same groups in linear time.
    call_regex = re.compile(
        r"<｜tool▁call▁begin｜>(?P<type>.*)<｜tool▁sep｜>(?P<name>.*)\n```json\n"
        r"(?P<arguments>[\s\S]*?)\n```<｜tool▁call▁end｜>"
    )
    portion_regex = re.compile(
        r"(?P<type>.*)<｜tool▁sep｜>(?P<name>.*)\n```json\n(?P<arguments>[\s\S]*[^\n`])"
    )
    name_regex = re.compile(r"(?P<type>.*)<｜tool▁sep｜>(?P<name>.*)\n")
    call_format = CallFormat(
        begin="<｜tool▁call▁begin｜>",
        sep="<｜tool▁sep｜>",
        end="\n```<｜tool▁call▁end｜>",
        fence="\n```json\n",
        partial_trim="\n`",
    )
    content_after_calls = True
    model_label = "DeepSeek-V3"
