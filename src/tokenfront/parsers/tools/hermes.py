"""hermes: `<tool_call>{"name": ..., "arguments": {...}}</tool_call>` (Hermes 2 Pro, Qwen)."""

from __future__ import annotations

from tokenfront.parsers.engines.json_in_markers import JsonInMarkersToolParser
from tokenfront.parsers.registry import tool_parser


@tool_parser("hermes")
class HermesToolParser(JsonInMarkersToolParser):
    start_marker = "<tool_call>"
    end_marker = "</tool_call>"
    # vLLM sets structural_tag_model="hermes", which (with VLLM_ENFORCE_STRICT_TOOL_CALLING)
    # sends tool_choice required/named through the auto path.
    supports_required_and_named = False
    forced_json_unless_strict = True
    # vLLM's hermes tests (test_hermes_*_serialized_arguments / *_bare_string_arguments):
    # docs/deviations.md.
    serialized_string_arguments = True
