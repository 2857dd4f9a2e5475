"""Llama 3.x / 4 JSON tool calls: `{"name": ..., "parameters"|"arguments": {...}}`.

Calls may follow `<|python_tag|>` and several are separated by `; `. One-shot parsing decodes
every top-level JSON object in the text; streaming only treats output that starts with the tag or
with `{` as a tool call.
"""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar

from tokenfront.parsers.base import (
    DeltaMessage,
    ExtractedToolCalls,
    JSONState,
    ToolCall,
    random_tool_call_id,
)
from tokenfront.parsers.engines.json_calls import (
    JsonToolParser,
    MalformedJSON,
    advance_all_partial_calls,
    dumps,
    is_complete_json,
    no_calls,
    partial_loads,
)
from tokenfront.parsers.registry import tool_parser

_PROSE = re.compile(r"[A-Za-z]")
PYTHON_TAG = "<|python_tag|>"
CALL_SEPARATOR = "; "


class _CallError(Exception):
    pass


def _skip_separator(text: str, pos: int) -> int:
    """The position after the separator that starts at `pos` (whitespace, one `;`)."""
    end = pos
    while end < len(text) and text[end].isspace():
        end += 1
    if end < len(text) and text[end] == ";":
        end += 1
    while end < len(text) and text[end].isspace():
        end += 1
    return end


@tool_parser("llama3_json")
class LlamaJsonToolParser(JsonToolParser):
    name = "llama3_json"
    # vLLM gives this parser a structural-tag model ("llama"), which (with strict tool calling,
    # the default) routes tool_choice required/named through this format's own parsing.
    supports_required_and_named: ClassVar[bool] = False
    # vLLM sets structural_tag_model="llama": under VLLM_ENFORCE_STRICT_TOOL_CALLING (default on)
    # tool_choice required/named then take the auto path.
    supports_required_and_named = False

    def __init__(self, tokenizer: Any, ctx: Any) -> None:
        super().__init__(tokenizer, ctx)
        if self.vocab_id(PYTHON_TAG) is None:
            raise RuntimeError(f"llama3_json needs the {PYTHON_TAG!r} token in the vocabulary")

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        if PYTHON_TAG not in text and "{" not in text:
            return no_calls(text)
        decoder = json.JSONDecoder()
        calls: list[ToolCall] = []
        end = -1
        for start, ch in enumerate(text):
            if ch != "{" or start <= end:
                continue
            last_end = max(end, 0)
            try:
                obj, used = decoder.raw_decode(text[start:])
                end = start + used
                name = obj["name"]
                args = obj["arguments"] if "arguments" in obj else obj["parameters"]
                if not isinstance(name, str):
                    raise _CallError(name)
                calls.append(ToolCall(name=name, arguments=dumps(args), id=random_tool_call_id()))
            except Exception:
                if calls and _PROSE.search(text, last_end, start):
                    # Deviation from vLLM 0.33.0 (docs/deviations.md): a brace inside prose
                    # after the calls does not cancel them (test_llama3_json_tool_parser.py::
                    # test_extract_tool_calls_brace_in_trailing_text / _json_fragment_in_…).
                    break
                # Any undecodable object or missing key: the whole output is content.
                return no_calls(text)
        if calls:
            return ExtractedToolCalls(tools_called=True, tool_calls=calls, content=None)
        return no_calls(text)

    def step(
        self,
        state: JSONState,
        previous_text: str,
        current_text: str,
        delta_text: str,
        delta_ids: list[int],
    ) -> DeltaMessage | None:
        if not (current_text.startswith(PYTHON_TAG) or current_text.startswith("{")):
            return DeltaMessage(content=delta_text)
        try:
            return advance_all_partial_calls(
                state, lambda flags: self._parse(current_text, flags), _CallError
            )
        except Exception:
            return None

    def _parse(self, current_text: str, flags: Any) -> tuple[list[Any], list[bool]] | None:
        calls: list[Any] = []
        complete: list[bool] = []
        pos = len(PYTHON_TAG) if current_text.startswith(PYTHON_TAG) else 0
        try:
            while pos < len(current_text):
                obj, used = partial_loads(current_text[pos:], flags)
                complete.append(is_complete_json(current_text[pos : pos + used]))
                pos += used
                # Calls are separated by "; " (vLLM skips exactly two characters); any
                # whitespace with at most one ";" is read as a separator
                # (test_extract_tool_calls_streaming_parallel_separators).
                pos = _skip_separator(current_text, pos)
                if "parameters" in obj:
                    if "arguments" in obj:
                        raise _CallError("both parameters and arguments")
                    obj["arguments"] = obj["parameters"]
                calls.append(obj)
        except MalformedJSON:
            return None
        return calls, complete
