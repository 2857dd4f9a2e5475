"""`openai`: gpt-oss Harmony channels; calls are messages addressed `to=functions.NAME`."""

from __future__ import annotations

from tokenfront.parsers.engines.channels import ChannelToolParser
from tokenfront.parsers.registry import tool_parser


@tool_parser("openai")
class OpenAIToolParser(ChannelToolParser):
    name = "openai"
    supports_required_and_named = False
    forced_json_unless_strict = True
    # Content always comes from the Harmony reading (the `final` channel), also when no call
    # is made: the pipeline takes the parser's content as it does for engine-based parsers
    # (vLLM's test_openai_tool_parser.py::test_extract_tool_calls_no_tools).
    engine_based = True
