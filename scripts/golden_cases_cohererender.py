"""Render-chat cases for the Cohere Command parsers (tests/golden/vllm-cohererender.jsonl).

`RENDER_CASES["cohere"]` is sent to `/v1/chat/completions/render` for each render config of
tests/golden/configs-cohererender.json by `scripts/record_cohere_render.py`. The tool sets
exercise the JSON-schema shapes that end up in vLLM's tool-call grammar (nested objects,
arrays, enums, consts, unions, references, bounds, patterns, odd tool names) next to every
tool_choice and the response-format folding. `RANGE_TOOLS` / `FORMAT_TOOLS` / `STRUCTURE_TOOLS`
cover the rest of the reproduced JSON Schema subset (integer / number ranges, multipleOf, string
formats, prefixItems, allOf, additionalProperties next to properties, enums of any JSON value,
recursive references); `REJECTED_TOOLS` are schemas xgrammar fails on (vLLM answers 500).
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

RANGE_TOOLS: list[dict[str, Any]] = [
    _tool("set_thermostat", {
        "type": "object",
        "properties": {
            "celsius": {"type": "number", "minimum": -10.5, "maximum": 35},
            "fan": {"type": "integer", "minimum": 0, "maximum": 5},
            "hours": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 48},
            "offset": {"type": "integer", "maximum": -17},
            "step": {"type": "integer", "multipleOf": 5, "minimum": 0, "maximum": 30},
            "even": {"type": "integer", "multipleOf": 2},
            "ratio": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
            "big": {"type": "integer", "minimum": 37, "maximum": 4521},
            "price": {"type": "number", "minimum": 0.01},
        },
        "required": ["celsius"],
    }),
]

FORMAT_TOOLS: list[dict[str, Any]] = [
    _tool("schedule", {
        "type": "object",
        "properties": {
            "day": {"type": "string", "format": "date"},
            "at": {"type": "string", "format": "date-time"},
            "clock": {"type": "string", "format": "time"},
            "owner": {"type": "string", "format": "email"},
            "ref": {"type": "string", "format": "uuid"},
            "link": {"type": "string", "format": "uri"},
            "host": {"type": "string", "format": "hostname"},
            "ip": {"type": "string", "format": "ipv4"},
            "free": {"type": "string", "format": "not-a-format", "minLength": 1, "maxLength": 9},
            "code": {"type": "string", "pattern": "^[A-Z]{2}$", "minLength": 2},
            "empty": {"type": "string", "maxLength": 0},
        },
        "required": ["day", "owner"],
    }),
]

STRUCTURE_TOOLS: list[dict[str, Any]] = [
    _tool("plot", {
        "type": "object",
        "properties": {
            "point": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}], "items": False},
            "series": {"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "number"},
                       "minItems": 1, "maxItems": 4},
            "style": {"allOf": [{"$ref": "#/$defs/style"}]},
            "extra": {"allOf": [{"type": "object"}, {"properties": {"x": {"type": "integer"}}}]},
            "labels": {"type": "object", "properties": {"title": {"type": "string"}, "it's": {"type": "string"}},
                       "additionalProperties": {"type": "string"}},
            "meta": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id", "missing"],
                     "additionalProperties": True},
            "level": {"enum": [0.5, 1.0, 2.5e10, {"auto": True}, [1, "two"], None, "max?"]},
            "tree": {"$ref": "#/$defs/node"},
            "maybe": {"type": ["number", "null"], "minimum": 0},
            "choice": {"oneOf": [{"type": "string", "format": "date"}, {"type": "integer", "minimum": 1}]},
            "any_of": {"anyOf": []},
        },
        "required": ["point"],
        "$defs": {
            "style": {"type": "object", "properties": {"color": {"enum": ["red", "blue"]},
                                                       "width": {"type": "number", "exclusiveMinimum": 0}}},
            "node": {"type": "object", "properties": {"value": {"type": "integer"},
                                                      "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
                     "required": ["value"]},
        },
    }),
]

REJECTED_TOOLS: list[dict[str, Any]] = [
    _tool("get_weather", {"type": "object", "properties": {"days": {"type": "integer", "minimum": 7, "maximum": 1}}}),
]
REJECTED_LATER_TOOLS: list[dict[str, Any]] = [
    *RANGE_TOOLS,
    _tool("pick", {"type": "object", "properties": {"which": {"enum": []}}}),
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
        "range_tools": {**_BASE, "tools": RANGE_TOOLS},
        "format_tools": {**_BASE, "tools": FORMAT_TOOLS, "tool_choice": "required"},
        "structure_tools": {**_BASE, "tools": STRUCTURE_TOOLS},
        "rejected_tool": {**_BASE, "tools": REJECTED_TOOLS},
        "rejected_later_tool": {**_BASE, "tools": REJECTED_LATER_TOOLS, "tool_choice": "auto"},
    },
}
