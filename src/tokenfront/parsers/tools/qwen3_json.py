"""`qwen3_json`: Qwen2.5 / QwQ / Qwen3 JSON tool calls, which vLLM 0.33.0 parses with hermes.

    <tool_call>
    {"name": ..., "arguments": {...}}
    </tool_call>
"""

from __future__ import annotations

from tokenfront.parsers.registry import tool_parser
from tokenfront.parsers.tools.hermes import HermesToolParser


@tool_parser("qwen3_json")
class Qwen3JsonToolParser(HermesToolParser):
    pass
