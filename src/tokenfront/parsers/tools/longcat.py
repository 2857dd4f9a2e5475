"""`longcat`: hermes-style JSON calls inside `<longcat_tool_call>` markers (LongCat-Flash)."""

from __future__ import annotations

from tokenfront.parsers.engines.json_in_markers import JsonInMarkersToolParser
from tokenfront.parsers.registry import tool_parser


@tool_parser("longcat")
class LongcatToolParser(JsonInMarkersToolParser):
    start_marker = "<longcat_tool_call>"
    end_marker = "</longcat_tool_call>"
    # structural-tag model in vLLM: required/named go through the auto path.
    supports_required_and_named = False
    forced_json_unless_strict = True
