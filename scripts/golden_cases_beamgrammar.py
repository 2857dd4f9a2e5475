"""Render requests for `beam`'s template-derived generation grammar (tests/golden/vllm-beamgrammarrender.jsonl).

Adds `RENDER_CASES["beam-grammar"]` to `golden_cases_rtemplate` for the literal-delimiter beam
models (tests/models/rtemplate-beam-literal*): tool choices, parallel calls, strict tools, tools
with varied schemas (enums, nested objects, arrays, optional parameters, `$ref` / `anyOf`,
string formats and patterns, free objects), names the template cannot spell, structured outputs
alongside tools, thinking on / off and include_reasoning false. Recorded by
`scripts/record_rtemplate_render.py --configs tests/golden/configs-beamgrammarrender.json
--out tests/golden/vllm-beamgrammarrender.jsonl`.
"""

from __future__ import annotations

import copy
from typing import Any

import golden_cases as gc
import golden_cases_rtemplate as gr

_MESSAGES = [{"role": "user", "content": "What's the weather in Paris?"}]
_THINK_OFF = {"enable_thinking": False}
_NAMED_SEARCH = {"type": "function", "function": {"name": "search"}}


def _tool(name: str, parameters: dict[str, Any] | None, **extra: Any) -> dict[str, Any]:
    function: dict[str, Any] = {"name": name, "description": f"The {name} tool."}
    if parameters is not None:
        function["parameters"] = parameters
    function.update(extra)
    return {"type": "function", "function": function}


def _strict(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = copy.deepcopy(tools)
    for tool in out:
        tool["function"]["strict"] = True
    return out


_NESTED = _tool("book_trip", {
    "type": "object",
    "properties": {
        "traveler": {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
                     "required": ["name"]},
        "legs": {"type": "array", "items": {"type": "object", "properties": {"from": {"type": "string"},
                                                                              "to": {"type": "string"}}}},
        "class": {"type": "string", "enum": ["economy", "business"]},
        "flexible": {"type": "boolean"},
        "budget": {"type": "number"},
    },
    "required": ["traveler", "class"],
})
_REFS = _tool("lookup", {
    "type": "object",
    "$defs": {"id": {"type": "string", "pattern": "^[A-Z]{3}[0-9]+$"}},
    "properties": {
        "key": {"$ref": "#/$defs/id"},
        "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        "maybe": {"type": "string", "nullable": True},
        "when": {"type": "string", "format": "date"},
        "mail": {"type": "string", "format": "email"},
        "code": {"type": "string", "pattern": "[a-z]+"},
    },
    "required": ["key"],
})
_ENUMS = _tool("set_mode", {
    "type": "object",
    "properties": {
        "mode": {"type": "string", "enum": ["fast", "slow", "off"]},
        "level": {"type": "integer", "enum": [1, 2, 3]},
        "fixed": {"const": "yes"},
        "label": {"type": ["string", "null"]},
    },
    "required": ["mode", "level"],
    "additionalProperties": False,
})
_FREE = _tool("remember", {"type": "object", "additionalProperties": True})
_CLOSED = _tool("ping", {"type": "object", "properties": {}, "additionalProperties": False})
_NO_PARAMS = _tool("now", None)
_UNSORTED = _tool("order", {
    "type": "object",
    "properties": {"zeta": {"type": "string"}, "alpha": {"type": "integer"}, "mid": {"type": "boolean"}},
    "required": ["zeta", "alpha"],
})
_BAD_NAME = _tool("get>weather", {"type": "object", "properties": {"city": {"type": "string"}}})
_DASH_NAME = _tool("get-weather", {"type": "object", "properties": {"city": {"type": "string"}}})
_BAD_KEY = _tool("odd_keys", {"type": "object", "properties": {"a>b": {"type": "string"}, "ok": {"type": "string"}}})
_EXTRA_KEYWORDS = _tool("ranged", {
    "type": "object",
    "properties": {"n": {"type": "integer", "minimum": 1, "maximum": 5}, "s": {"type": "string", "minLength": 2}},
    "minProperties": 1,
})

_PATTERNS = _tool("tagged", {
    "type": "object",
    "properties": {
        "markup": {"type": "string", "pattern": "<b>[a-z]+"},
        "word": {"type": "string", "pattern": "^[a-z]+$"},
        "any": {"type": "string", "pattern": ".+"},
        "host": {"type": "string", "format": "hostname"},
        "note": {"type": "string", "description": "m\u00e9t\u00e9o \u2603"},
    },
    "required": ["word"],
})
_PATTERN_WORD = _tool("word_only", {
    "type": "object",
    "properties": {"word": {"type": "string", "pattern": "^[a-z]+$"}, "n": {"type": ["integer", "null"]}},
    "required": ["word", "n"],
})

_REJECTED = _tool("bad_range", {
    "type": "object",
    "properties": {"n": {"type": "integer", "minimum": 5, "maximum": 1}, "s": {"type": "string"}},
    "required": ["n"],
})

_WEATHER_SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}
_JSON_SCHEMA_RF = {"type": "json_schema", "json_schema": {"name": "answer", "schema": _WEATHER_SCHEMA}}
_TAG_RF = {
    "type": "structural_tag",
    "format": {"type": "triggered_tags", "triggers": ["<x>"],
               "tags": [{"begin": "<x>", "content": {"type": "any_text"}, "end": "</x>"}]},
}


def _cases() -> dict[str, dict[str, Any]]:
    m = _MESSAGES
    tools = gc.TOOLS
    cases: dict[str, dict[str, Any]] = {
        "no_tools": {"messages": m},
        "no_tools_thinking_off": {"messages": m, "chat_template_kwargs": _THINK_OFF},
        "no_tools_include_reasoning_false": {"messages": m, "include_reasoning": False},
        "tools_default": {"messages": m, "tools": tools},
        "tools_auto": {"messages": m, "tools": tools, "tool_choice": "auto"},
        "tools_none": {"messages": m, "tools": tools, "tool_choice": "none"},
        "required": {"messages": m, "tools": tools, "tool_choice": "required"},
        "named": {"messages": m, "tools": tools, "tool_choice": gr.NAMED},
        "named_search": {"messages": m, "tools": tools, "tool_choice": _NAMED_SEARCH},
        "parallel_false": {"messages": m, "tools": tools, "parallel_tool_calls": False},
        "required_parallel_false": {"messages": m, "tools": tools, "tool_choice": "required",
                                    "parallel_tool_calls": False},
        "strict_tools": {"messages": m, "tools": _strict(tools)},
        "strict_tools_none": {"messages": m, "tools": _strict(tools), "tool_choice": "none"},
        "strict_one": {"messages": m, "tools": [_strict(tools)[0], tools[1]]},
        "thinking_off": {"messages": m, "tools": tools, "chat_template_kwargs": _THINK_OFF},
        "thinking_off_required": {"messages": m, "tools": tools, "tool_choice": "required",
                                  "chat_template_kwargs": _THINK_OFF},
        "include_reasoning_false": {"messages": m, "tools": tools, "include_reasoning": False},
        "include_reasoning_false_required": {"messages": m, "tools": tools, "tool_choice": "required",
                                             "include_reasoning": False},
        "nested_required": {"messages": m, "tools": [_NESTED], "tool_choice": "required"},
        "nested_strict": {"messages": m, "tools": _strict([_NESTED])},
        "refs_required": {"messages": m, "tools": [_REFS], "tool_choice": "required"},
        "refs_strict": {"messages": m, "tools": _strict([_REFS])},
        "enums_required": {"messages": m, "tools": [_ENUMS], "tool_choice": "required"},
        "enums_auto": {"messages": m, "tools": [_ENUMS, _NESTED]},
        "free_and_closed": {"messages": m, "tools": [_FREE, _CLOSED, _NO_PARAMS], "tool_choice": "required"},
        "free_and_closed_auto": {"messages": m, "tools": [_FREE, _CLOSED, _NO_PARAMS]},
        "unsorted_required": {"messages": m, "tools": [_UNSORTED], "tool_choice": "required"},
        "extra_keywords_required": {"messages": m, "tools": [_EXTRA_KEYWORDS], "tool_choice": "required"},
        "extra_keywords_strict": {"messages": m, "tools": _strict([_EXTRA_KEYWORDS])},
        "bad_name": {"messages": m, "tools": [_BAD_NAME]},
        "bad_name_required": {"messages": m, "tools": [_BAD_NAME], "tool_choice": "required"},
        "dash_name": {"messages": m, "tools": [_DASH_NAME, tools[0]]},
        "bad_key_required": {"messages": m, "tools": [_BAD_KEY], "tool_choice": "required"},
        "bad_key_strict": {"messages": m, "tools": _strict([_BAD_KEY])},
        "json_schema": {"messages": m, "response_format": _JSON_SCHEMA_RF},
        "json_schema_tools": {"messages": m, "tools": tools, "response_format": _JSON_SCHEMA_RF},
        "json_schema_required": {"messages": m, "tools": tools, "tool_choice": "required",
                                 "response_format": _JSON_SCHEMA_RF},
        "json_object": {"messages": m, "response_format": {"type": "json_object"}},
        "json_object_tools": {"messages": m, "tools": tools, "response_format": {"type": "json_object"}},
        "structural_tag_rf": {"messages": m, "tools": tools, "response_format": _TAG_RF},
        "so_regex": {"messages": m, "structured_outputs": {"regex": "[0-9]{3}"}},
        "so_regex_tools": {"messages": m, "tools": tools, "structured_outputs": {"regex": "(yes|no)"}},
        "so_choice": {"messages": m, "structured_outputs": {"choice": ["sunny", "rainy"]}},
        "so_json": {"messages": m, "tools": tools, "structured_outputs": {"json": _WEATHER_SCHEMA}},
        "so_bad_regex": {"messages": m, "structured_outputs": {"regex": "(["}},
        "patterns_strict": {"messages": m, "tools": _strict([_PATTERNS])},
        "patterns_required": {"messages": m, "tools": [_PATTERNS], "tool_choice": "required"},
        "pattern_word_strict": {"messages": m, "tools": _strict([_PATTERN_WORD, _NESTED])},
        "named_parallel_false": {"messages": m, "tools": tools, "tool_choice": gr.NAMED, "parallel_tool_calls": False},
        "named_missing": {"messages": m, "tools": [tools[1]], "tool_choice": gr.NAMED},
        "reasoning_effort_none": {"messages": m, "tools": tools, "reasoning_effort": "none"},
        "thinking_on_explicit": {"messages": m, "tools": tools, "chat_template_kwargs": {"enable_thinking": True}},
        "continue_answer": {"messages": [*m, {"role": "assistant", "content": "<response>\nIt is"}],
                            "tools": tools, "continue_final_message": True, "add_generation_prompt": False},
        "continue_answer_required": {"messages": [*m, {"role": "assistant", "content": "<response>\nIt is"}],
                                     "tools": tools, "tool_choice": "required",
                                     "continue_final_message": True, "add_generation_prompt": False},
        "continue_thinking": {"messages": [*m, {"role": "assistant", "content": "<think>\nLet me"}],
                              "tools": tools, "continue_final_message": True, "add_generation_prompt": False},
        "continue_after_thinking": {"messages": [*m, {"role": "assistant", "content": "<think>\nok\n</think>\n\n"}],
                                    "tools": tools, "continue_final_message": True, "add_generation_prompt": False},
        "continue_plain": {"messages": [*m, {"role": "assistant", "content": "Sure"}],
                           "continue_final_message": True, "add_generation_prompt": False},
        "so_grammar": {"messages": m, "structured_outputs": {"grammar": 'root ::= "yes" | "no"'}},
        "so_json_string": {"messages": m, "structured_outputs": {"json": '{"type": "object", "properties": {"a": {"type": "integer"}}}'}},
        "so_choice_one": {"messages": m, "tools": tools, "structured_outputs": {"choice": ["only"]}},
        "tools_none_regex": {"messages": m, "tools": tools, "tool_choice": "none", "structured_outputs": {"regex": "[a-z]+"}},
        "tool_history": {"messages": [*m, {"role": "assistant", "content": "", "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}], "tools": tools},
        "tools_none_json_object": {"messages": m, "tools": tools, "tool_choice": "none",
                                   "response_format": {"type": "json_object"}},
    }
    cases.update(_rejected_cases())
    return cases


def _rejected_cases() -> dict[str, dict[str, Any]]:
    """Schemas xgrammar refuses (an empty integer range)."""
    m = _MESSAGES
    return {
        "rejected_schema_strict": {"messages": m, "tools": _strict([_REJECTED])},
        "rejected_schema_required": {"messages": m, "tools": [_REJECTED], "tool_choice": "required"},
        "so_json_rejected": {"messages": m, "structured_outputs": {"json": {"type": "integer", "minimum": 5,
                                                                            "maximum": 1}}},
    }


gr.RENDER_CASES["beam-grammar"] = _cases()
gr.RENDER_CASES["beam-grammar-rejected"] = _rejected_cases()
