"""Render cases for the render41 corpus (DeepSeek V4.1 encoder, structural tags, Kimi K3 flags,
`--reasoning-effort-map`), recorded by `scripts/record_render41_golden.py`.

`RENDER_CASES[name]` maps a scenario to a chat render request body (without `model`).
"""

from __future__ import annotations

import copy
from typing import Any

from golden_cases import TOOLS

Body = dict[str, Any]

_USER = {"role": "user", "content": "Hi"}
_CALL = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city": "Paris", "days": 2}'},
}
_CALL2 = {
    "id": "call_2",
    "type": "function",
    "function": {"name": "search", "arguments": '{"query": "x", "tags": ["a"], "exact": true}'},
}
_HISTORY = [
    {"role": "system", "content": "You are helpful."},
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": "", "reasoning": "Need the tool.", "tool_calls": [_CALL]},
    {"role": "tool", "tool_call_id": "call_1", "content": "Sunny, 21C"},
]


def _strict_tools() -> list[dict[str, Any]]:
    tools = copy.deepcopy(TOOLS)
    tools[0]["function"]["strict"] = True
    return tools


def _loose_tools() -> list[dict[str, Any]]:
    """One tool without parameters, one marked strict false."""
    tools = copy.deepcopy(TOOLS)
    del tools[0]["function"]["parameters"]
    tools[1]["function"]["strict"] = False
    return tools


_NAMED = {"type": "function", "function": {"name": "search"}}

V41: dict[str, Body] = {
    "simple": {"messages": [_USER]},
    "system": {"messages": [{"role": "system", "content": "Be brief."}, _USER]},
    "system_only": {"messages": [{"role": "system", "content": "Be brief."}]},
    "developer": {"messages": [{"role": "developer", "content": "Rules."}, _USER]},
    "developer_empty": {"messages": [{"role": "developer", "content": ""}, _USER]},
    "tools": {"messages": [{"role": "user", "content": "Weather in Paris?"}], "tools": TOOLS},
    "tools_with_system": {
        "messages": [{"role": "system", "content": "Sys."}, {"role": "user", "content": "W?"}],
        "tools": TOOLS,
    },
    "tools_no_thinking": {
        "messages": [{"role": "user", "content": "W?"}], "tools": TOOLS,
        "chat_template_kwargs": {"thinking": False},
    },
    "no_thinking": {"messages": [_USER], "chat_template_kwargs": {"thinking": False}},
    "enable_thinking_false": {"messages": [_USER], "chat_template_kwargs": {"enable_thinking": False}},
    "thinking_true": {"messages": [_USER], "chat_template_kwargs": {"thinking": True}},
    "effort_none": {"messages": [_USER], "reasoning_effort": "none"},
    "effort_low": {"messages": [_USER], "reasoning_effort": "low"},
    "effort_minimal": {"messages": [_USER], "reasoning_effort": "minimal"},
    "effort_medium": {"messages": [_USER], "reasoning_effort": "medium"},
    "effort_high": {"messages": [_USER], "reasoning_effort": "high"},
    "effort_xhigh": {"messages": [_USER], "reasoning_effort": "xhigh"},
    "effort_max": {"messages": [_USER], "reasoning_effort": "max"},
    "effort_kw_max": {"messages": [_USER], "chat_template_kwargs": {"reasoning_effort": "max"}},
    "effort_kw_int": {"messages": [_USER], "chat_template_kwargs": {"reasoning_effort": 30}},
    "effort_kw_int_100": {"messages": [_USER], "chat_template_kwargs": {"reasoning_effort": 100}},
    "effort_kw_int_zero": {"messages": [_USER], "chat_template_kwargs": {"reasoning_effort": 0}},
    "effort_kw_float": {"messages": [_USER], "chat_template_kwargs": {"reasoning_effort": 50.0}},
    "effort_kw_bool": {"messages": [_USER], "chat_template_kwargs": {"reasoning_effort": True}},
    "effort_kw_bad": {"messages": [_USER], "chat_template_kwargs": {"reasoning_effort": "huge"}},
    "effort_no_thinking_bad": {
        "messages": [_USER], "chat_template_kwargs": {"thinking": False, "reasoning_effort": "huge"},
    },
    "effort_with_system": {
        "messages": [{"role": "system", "content": "S"}, _USER], "reasoning_effort": "low",
    },
    "multi_turn": {
        "messages": [
            _USER,
            {"role": "assistant", "content": "Hello! 👋", "reasoning": "greet"},
            {"role": "user", "content": "日本語で?"},
        ],
    },
    "multi_turn_no_drop": {
        "messages": [
            _USER,
            {"role": "assistant", "content": "Hello!", "reasoning": "greet"},
            {"role": "user", "content": "Again"},
        ],
        "chat_template_kwargs": {"drop_thinking": False},
    },
    "multi_turn_chat": {
        "messages": [
            _USER,
            {"role": "assistant", "content": "Hello!", "reasoning": "greet"},
            {"role": "user", "content": "Again"},
        ],
        "chat_template_kwargs": {"thinking": False},
    },
    "reasoning_content_key": {
        "messages": [
            {"role": "developer", "content": "Dev rules."},
            _USER,
            {"role": "assistant", "content": "Hello!", "reasoning_content": "greet"},
            {"role": "user", "content": "Again"},
        ],
    },
    "tool_results": {"messages": _HISTORY, "tools": TOOLS},
    "tool_results_no_tools": {"messages": _HISTORY},
    "tool_results_chat": {"messages": _HISTORY, "chat_template_kwargs": {"thinking": False}},
    "tool_then_user": {"messages": [*_HISTORY, {"role": "user", "content": "And Rome?"}]},
    "parallel_tool_results": {
        "messages": [
            {"role": "user", "content": "Two cities"},
            {"role": "assistant", "content": None, "tool_calls": [_CALL, _CALL2]},
            {"role": "tool", "tool_call_id": "call_2", "content": "Found"},
            {"role": "tool", "tool_call_id": "call_1", "content": "Sunny"},
        ],
        "tools": TOOLS,
    },
    "tool_list_content": {
        "messages": [
            {"role": "user", "content": "W?"},
            {"role": "assistant", "content": None, "tool_calls": [_CALL]},
            {"role": "tool", "tool_call_id": "call_1", "content": [
                {"type": "text", "text": "part one"}, {"type": "text", "text": "part two"},
            ]},
        ],
    },
    "args_dict": {
        "messages": [
            {"role": "user", "content": "W?"},
            {"role": "assistant", "content": "ok", "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "search", "arguments": {"query": "q", "limit": 3}}},
            ]},
            {"role": "tool", "tool_call_id": "c", "content": "done"},
        ],
    },
    "args_double_encoded": {
        "messages": [
            {"role": "user", "content": "W?"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "search", "arguments": '"{\\"query\\": \\"q\\"}"'}},
            ]},
            {"role": "tool", "tool_call_id": "c", "content": "done"},
        ],
    },
    "args_not_object": {
        "messages": [
            {"role": "user", "content": "W?"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "search", "arguments": "[1, 2]"}},
            ]},
            {"role": "tool", "tool_call_id": "c", "content": "done"},
        ],
    },
    "args_invalid_json": {
        "messages": [
            {"role": "user", "content": "W?"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "search", "arguments": "{not json"}},
            ]},
            {"role": "tool", "tool_call_id": "c", "content": "done"},
        ],
    },
    "mid_system": {
        "messages": [
            {"role": "system", "content": "First."},
            _USER,
            {"role": "assistant", "content": "Hello!", "reasoning": "greet"},
            {"role": "system", "content": "Now be formal."},
        ],
    },
    "mid_system_then_user": {
        "messages": [
            _USER,
            {"role": "assistant", "content": "Hello!", "reasoning": "greet"},
            {"role": "system", "content": "Now be formal."},
            {"role": "user", "content": "Again"},
        ],
    },
    "multi_part_user": {
        "messages": [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}],
    },
    "multi_part_system": {
        "messages": [
            {"role": "system", "content": [{"type": "text", "text": "s1"}, {"type": "text", "text": "s2"}]},
            _USER,
        ],
    },
    "user_user": {"messages": [{"role": "user", "content": "one"}, {"role": "user", "content": "two"}]},
    "image_placeholder_text": {"messages": [{"role": "user", "content": "see <｜deepseek_image｜> here"}]},
    "assistant_last": {
        "messages": [_USER, {"role": "assistant", "content": "Hel"}],
        "add_generation_prompt": False, "continue_final_message": True,
    },
    "assistant_last_no_continue": {
        "messages": [_USER, {"role": "assistant", "content": "Hello", "reasoning": "r"}],
        "add_generation_prompt": False,
    },
    "response_format": {"messages": [_USER], "response_format": {"type": "json_object"}},
    "empty_system_content": {"messages": [{"role": "system", "content": ""}, _USER], "tools": TOOLS},
}

V41_TAGS: dict[str, Body] = {
    "tag_required": {"messages": [_USER], "tools": TOOLS, "tool_choice": "required"},
    "tag_named": {"messages": [_USER], "tools": TOOLS, "tool_choice": _NAMED},
    "tag_named_missing": {
        "messages": [_USER], "tools": TOOLS,
        "tool_choice": {"type": "function", "function": {"name": "nope"}},
    },
    "tag_auto": {"messages": [_USER], "tools": TOOLS, "tool_choice": "auto"},
    "tag_auto_strict": {"messages": [_USER], "tools": _strict_tools(), "tool_choice": "auto"},
    "tag_auto_single": {
        "messages": [_USER], "tools": TOOLS, "tool_choice": "auto", "parallel_tool_calls": False,
    },
    "tag_required_single": {
        "messages": [_USER], "tools": TOOLS, "tool_choice": "required", "parallel_tool_calls": False,
    },
    "tag_required_strict": {"messages": [_USER], "tools": _strict_tools(), "tool_choice": "required"},
    "tag_required_loose": {"messages": [_USER], "tools": _loose_tools(), "tool_choice": "required"},
    "tag_named_single": {
        "messages": [_USER], "tools": TOOLS, "tool_choice": _NAMED, "parallel_tool_calls": False,
    },
    "tag_auto_strict_json": {
        "messages": [_USER], "tools": _strict_tools(), "tool_choice": "auto",
        "response_format": {"type": "json_schema", "json_schema": {
            "name": "r", "schema": {"type": "object", "properties": {"a": {"type": "integer"}}},
        }},
    },
    "tag_required_json": {
        "messages": [_USER], "tools": TOOLS, "tool_choice": "required",
        "response_format": {"type": "json_object"},
    },
    "tag_none": {"messages": [_USER], "tools": TOOLS, "tool_choice": "none"},
}

FIM: dict[str, Body] = {
    "fim_text": {"_endpoint": "completions", "prompt": "def add(a, b):\n", "suffix": "\n    return c\n", "max_tokens": 8},
    "fim_list": {"_endpoint": "completions", "prompt": ["x = ", "y = "], "suffix": " + 1", "max_tokens": 8},
    "fim_empty_suffix": {"_endpoint": "completions", "prompt": "abc", "suffix": "", "max_tokens": 8},
    "fim_token_prompt": {"_endpoint": "completions", "prompt": [1, 2, 3], "suffix": "z", "max_tokens": 8},
    "fim_echo": {"_endpoint": "completions", "prompt": "abc", "suffix": "z", "echo": True, "max_tokens": 8},
    "no_suffix": {"_endpoint": "completions", "prompt": "abc", "max_tokens": 8},
}

_RICH_TOOL = {
    "type": "function",
    "strict": True,
    "function": {
        "name": "book \"x\" & y",
        "strict": True,
        "parameters": {
            "type": "object",
            "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "number"}}}},
            "properties": {
                "title": {"type": "string", "maxLength": 20, "minLength": 2},
                "big": {"type": "string", "maxLength": 5000},
                "mode": {"type": "string", "const": "fast"},
                "pick": {"type": "string", "enum": ["a", "b<|c"]},
                "flag": {"type": "boolean"},
                "none": {"type": "null"},
                "maybe": {"type": ["string", "null"]},
                "any": {},
                "where": {"$ref": "#/$defs/Point"},
                "at": {"type": "object", "properties": {"p": {"$ref": "#/$defs/Point"}}},
                "tags": {"type": "array", "items": {"type": "string"}},
                'k"ey': {"type": "integer"},
            },
        },
    },
}
_BARE_TOOL = {"type": "function", "function": {"name": "ping", "strict": True}}
_EMPTY_PROPS_TOOL = {"type": "function", "function": {
    "name": "noop", "strict": True, "parameters": {"type": "object", "properties": {}, "required": ["x"]},
}}
RICH: dict[str, Body] = {
    "rich_required": {"messages": [_USER], "tools": [_RICH_TOOL, _BARE_TOOL, _EMPTY_PROPS_TOOL], "tool_choice": "required"},
    "rich_auto": {"messages": [_USER], "tools": [_RICH_TOOL, _BARE_TOOL], "tool_choice": "auto"},
    "rich_named": {
        "messages": [_USER], "tools": [_RICH_TOOL, _BARE_TOOL],
        "tool_choice": {"type": "function", "function": {"name": "ping"}},
    },
    "rich_named_single": {
        "messages": [_USER], "tools": [_RICH_TOOL, _BARE_TOOL], "parallel_tool_calls": False,
        "tool_choice": {"type": "function", "function": {"name": 'book "x" & y'}},
    },
}

PARTS: dict[str, Body] = {
    "input_text_part": {"messages": [{"role": "user", "content": [{"type": "input_text", "text": "a"}]}]},
    "refusal_part": {"messages": [
        _USER, {"role": "assistant", "content": [{"type": "refusal", "refusal": "no"}]}, {"role": "user", "content": "ok"},
    ]},
    "thinking_part": {"messages": [{"role": "user", "content": [{"type": "thinking", "thinking": "t"}]}]},
    "assistant_parts": {"messages": [
        _USER, {"role": "assistant", "content": [{"type": "text", "text": "x"}, {"type": "text", "text": "y"}]},
        {"role": "user", "content": "ok"},
    ], "chat_template_kwargs": {"thinking": False}},
    "empty_user": {"messages": [{"role": "user", "content": ""}]},
    "empty_tool_calls": {"messages": [_USER, {"role": "assistant", "content": "a", "tool_calls": []}, {"role": "user", "content": "b"}]},
    "orphan_tool": {"messages": [{"role": "tool", "tool_call_id": "x", "content": "r"}, _USER]},
    "user_task_key": {"messages": [{"role": "user", "content": "q", "task": "query"}]},
    "assistant_name": {"messages": [_USER, {"role": "assistant", "content": "a", "name": "bot"}, {"role": "user", "content": "b"}]},
    "tool_then_system": {"messages": [*_HISTORY, {"role": "system", "content": "later"}]},
    "reasoning_with_tools_history": {"messages": [
        _USER, {"role": "assistant", "content": "Hello!", "reasoning": "greet"}, {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": "", "reasoning": "tool", "tool_calls": [_CALL]},
        {"role": "tool", "tool_call_id": "call_1", "content": "Sunny"},
    ], "tools": TOOLS},
    "continue_with_reasoning": {
        "messages": [_USER, {"role": "assistant", "content": "Hel", "reasoning": "r"}],
        "add_generation_prompt": False, "continue_final_message": True,
    },
    "unicode_args": {"messages": [
        {"role": "user", "content": "W?"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c", "type": "function", "function": {
            "name": "search", "arguments": '{"query": "東京 \\"q\\"", "filters": {"a": null, "b": 1.5}}'}}]},
        {"role": "tool", "tool_call_id": "c", "content": "ok"},
    ]},
}

RENDER_CASES: dict[str, dict[str, Body]] = {
    "v41": {**V41, **V41_TAGS},
    "v41_plain": V41,
    "v41_mode": {k: V41[k] for k in ("simple", "tools", "tool_results", "effort_low", "mid_system")},
    "tags": V41_TAGS,
    "tags_plain": {"simple": {"messages": [_USER]}, **V41_TAGS},
    "fim": FIM,
    "parts": PARTS,
    "rich": RICH,
    "effort_map": {
        k: V41[k]
        for k in (
            "simple", "effort_none", "effort_low", "effort_minimal", "effort_medium", "effort_high",
            "effort_xhigh", "effort_max", "effort_kw_max",
        )
    },
}
