"""Phi-4-mini JSON tool calls: `functools[{"name": ..., "arguments": {...}}, ...]`.

Only one-shot parsing finds calls; vLLM's streaming for this format emits nothing at all.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tokenfront.parsers.base import (
    DeltaMessage,
    ExtractedToolCalls,
    JSONState,
    ToolCall,
    random_tool_call_id,
)
from tokenfront.parsers.engines.json_calls import JsonToolParser, dumps, no_calls
from tokenfront.parsers.registry import tool_parser

_CALLS_RE = re.compile(r"functools\[(.*?)\]", re.DOTALL)


@tool_parser("phi4_mini_json")
class Phi4MiniJsonToolParser(JsonToolParser):
    name = "phi4_mini_json"

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        match = _CALLS_RE.search(text)
        if not match:
            return no_calls(text)
        try:
            raw_calls: list[Any] = []
            try:
                raw_calls = json.loads("[" + match.group(1) + "]")
            except json.JSONDecodeError:
                # vLLM logs the error and reports a tool call with no calls (and no content).
                pass
            calls = []
            for raw in raw_calls:
                args = raw["arguments"] if "arguments" in raw else raw["parameters"]
                name = raw["name"]
                if not isinstance(name, str):
                    raise TypeError(name)
                calls.append(ToolCall(name=name, arguments=dumps(args), id=random_tool_call_id()))
        except Exception:
            return no_calls(text)
        return ExtractedToolCalls(tools_called=True, tool_calls=calls, content=None)

    def step(
        self,
        state: JSONState,
        previous_text: str,
        current_text: str,
        delta_text: str,
        delta_ids: list[int],
    ) -> DeltaMessage | None:
        return None
