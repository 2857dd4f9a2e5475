"""`openai`: gpt-oss Harmony channels; calls are messages addressed `to=functions.NAME`."""

from __future__ import annotations

from tokenfront.parsers.engines.channels import ChannelToolParser
from tokenfront.parsers.registry import tool_parser


@tool_parser("openai")
class OpenAIToolParser(ChannelToolParser):
    name = "openai"
    supports_required_and_named = False
