"""Render-chat cases for the Cohere Command parsers (tests/golden/vllm-cohererender.jsonl).

`RENDER_CASES["cohere"]` is sent to `/v1/chat/completions/render` for each render config of
tests/golden/configs-cohererender.json by `scripts/record_cohere_render.py`. The tool sets
exercise the JSON-schema shapes that end up in vLLM's tool-call grammar (nested objects,
arrays, enums, consts, unions, references, bounds, patterns, odd tool names) next to every
tool_choice and the response-format folding. Numeric bounds and string formats are left out:
tokenfront does not reproduce xgrammar's range and format grammars (docs/parsers.md).
"""

from __future__ import annotations

from typing import Any

import golden_cases as gc

_MESSAGES = [{"role": "user", "content": "What's the weather in Paris?"}]
NAMED = {"type": "function", "function": {"name": "get_weather"}}


def _tool(name: str, parameters: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    function: dict[str, Any] = {"name": name, **extra}
    if parameters is not None:
        function["parameters"] = parameters
    return {"type": "function", "function": function}


RICH_TOOLS: list[dict[str, Any]] = [
    _tool("book_trip", {
        "type": "object",
        "properties": {
            "traveller": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
                "required": ["name", "age"],
            },
            "legs": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"from": {"type": "string"}, "to": {"type": "string"}},
                    "required": ["from", "to"],
                },
                "minItems": 1,
            },
            "class": {"enum": ["economy", "business", 1, None, True]},
            "budget": {"type": "number"},
            "note": {"type": ["string", "null"]},
            "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
            "kind": {"const": "trip"},
            "flexible": {"type": "boolean", "description": "dates may move"},
        },
        "required": ["traveller", "legs"],
    }),
    _tool("lookup", {
        "type": "object",
        "properties": {
            "id": {"anyOf": [{"type": "integer"}, {"type": "string", "minLength": 2, "maxLength": 8}]},
            "where": {"$ref": "#/$defs/place"},
            "extra": {"type": "object", "additionalProperties": {"type": "integer"}},
            "free": {"type": "object", "additionalProperties": True},
            "pair": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2},
        },
        "$defs": {
            "place": {"type": "object", "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
                      "required": ["lat", "lon"]},
        },
    }),
]

ODD_TOOLS: list[dict[str, Any]] = [
    _tool("no_params"),
    _tool("empty_object", {"type": "object", "properties": {}}),
    _tool("get-time.now", {"type": "object", "properties": {"tz": {"type": "string", "default": "UTC"}}}),
    _tool("root", {"type": "object", "properties": {"basic_string": {"type": "string"}}, "required": ["basic_string"]}),
]

SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}

_BASE: dict[str, Any] = {"messages": _MESSAGES}
_TOOLS: dict[str, Any] = {**_BASE, "tools": gc.TOOLS}

RENDER_CASES: dict[str, dict[str, dict[str, Any]]] = {
    "cohere": {
        "no_tools": _BASE,
        "tools_default": _TOOLS,
        "tools_auto": {**_TOOLS, "tool_choice": "auto"},
        "tools_none": {**_TOOLS, "tool_choice": "none"},
        "required": {**_TOOLS, "tool_choice": "required"},
        "named": {**_TOOLS, "tool_choice": NAMED},
        "parallel_false": {**_TOOLS, "parallel_tool_calls": False},
        "one_tool": {**_BASE, "tools": gc.TOOLS[:1]},
        "rich_tools": {**_BASE, "tools": RICH_TOOLS},
        "rich_tools_required": {**_BASE, "tools": RICH_TOOLS, "tool_choice": "required"},
        "odd_tools": {**_BASE, "tools": ODD_TOOLS},
        "json_object_tools": {**_TOOLS, "response_format": {"type": "json_object"}},
        "json_schema_tools": {**_TOOLS, "response_format": {"type": "json_schema",
                                                             "json_schema": {"name": "a", "schema": SCHEMA}}},
        "so_json_tools": {**_TOOLS, "structured_outputs": {"json": SCHEMA}},
        "text_format_tools": {**_TOOLS, "response_format": {"type": "text"}},
        "json_schema_only": {**_BASE, "response_format": {"type": "json_schema",
                                                           "json_schema": {"name": "a", "schema": SCHEMA}}},
        "so_regex_tools": {**_TOOLS, "structured_outputs": {"regex": "[a-z]+"}},
        "skip_special_true": {**_TOOLS, "skip_special_tokens": True},
        "include_reasoning_false": {**_TOOLS, "include_reasoning": False},
    },
}
