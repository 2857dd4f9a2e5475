"""Render and tokenize cases for the kimik3 corpus (vLLM's Kimi K3 renderer), recorded by
`scripts/record_render41_golden.py --cases-module golden_cases_kimik3`.

`RENDER_CASES[name]` maps a scenario to a request body (without `model`); `"_endpoint":
"tokenize"` sends it to `/tokenize` instead of the chat render endpoint.
"""

from __future__ import annotations

from typing import Any

from golden_cases import TOOLS

Body = dict[str, Any]

_USER = {"role": "user", "content": "Hi"}
_W1 = {
    "id": "call_w",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
}
_S1 = {
    "id": "call_s",
    "type": "function",
    "function": {"name": "search", "arguments": '{"query": "x", "exact": true}'},
}
_W2 = {
    "id": "call_w2",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'},
}
_NOID = {"type": "function", "function": {"name": "search", "arguments": '{"query": "y"}'}}


def _calls(*calls: dict[str, Any], reasoning: str | None = None) -> list[dict[str, Any]]:
    message: dict[str, Any] = {"role": "assistant", "content": "", "tool_calls": list(calls)}
    if reasoning is not None:
        message["reasoning"] = reasoning
    return [{"role": "user", "content": "Weather and search?"}, message]


def _result(ref: str | None, content: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "tool", "content": content}
    if ref is not None:
        message["tool_call_id"] = ref
    return message


_NAMED = {"type": "function", "function": {"name": "search"}}
_SCHEMA = {
    "type": "json_schema",
    "json_schema": {
        "name": "answer",
        "schema": {"type": "object", "properties": {"a": {"type": "integer"}}},
    },
}

CORE: dict[str, Body] = {
    "simple": {"messages": [_USER]},
    "system": {"messages": [{"role": "system", "content": "Be brief."}, _USER]},
    "developer": {"messages": [{"role": "developer", "content": "Rules."}, _USER]},
    "multi_turn": {
        "messages": [
            {"role": "system", "content": "Sys."},
            {"role": "user", "content": "Hello"},
            {"role": "assistant", "content": "Hi there"},
            {"role": "user", "content": "How are you?"},
        ]
    },
    "history_reasoning": {
        "messages": [
            {"role": "user", "content": "2+2?"},
            {"role": "assistant", "content": "4", "reasoning": "Add them."},
            {"role": "user", "content": "And 3+3?"},
        ]
    },
    "content_parts": {
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Part one."},
                    {"type": "text", "text": "Part two."},
                ],
            }
        ]
    },
    "unicode": {"messages": [{"role": "user", "content": "héllo 世界 🌍 <|open|> literal"}]},
    "no_generation_prompt": {"messages": [_USER], "add_generation_prompt": False},
    "continue_final": {
        "messages": [_USER, {"role": "assistant", "content": "Partial ans"}],
        "add_generation_prompt": False,
        "continue_final_message": True,
    },
    "both_gen_continue": {
        "messages": [_USER, {"role": "assistant", "content": "x"}],
        "add_generation_prompt": True,
        "continue_final_message": True,
    },
    "tools": {"messages": [{"role": "user", "content": "Weather?"}], "tools": TOOLS},
    "tools_auto": {
        "messages": [{"role": "user", "content": "Weather?"}],
        "tools": TOOLS,
        "tool_choice": "auto",
    },
    "tools_none": {
        "messages": [{"role": "user", "content": "Weather?"}],
        "tools": TOOLS,
        "tool_choice": "none",
    },
    "tools_required": {
        "messages": [{"role": "user", "content": "W?"}],
        "tools": TOOLS,
        "tool_choice": "required",
    },
    "tools_named": {
        "messages": [{"role": "user", "content": "W?"}],
        "tools": TOOLS,
        "tool_choice": _NAMED,
    },
    "no_tools_required": {"messages": [_USER], "tool_choice": "required"},
    "no_tools_none": {"messages": [_USER], "tool_choice": "none"},
    "calls_results_in_order": {
        "messages": [*_calls(_W1, _S1), _result("call_w", "Sunny"), _result("call_s", "Found")],
        "tools": TOOLS,
    },
    "calls_results_reversed": {
        "messages": [*_calls(_W1, _S1), _result("call_s", "Found"), _result("call_w", "Sunny")],
        "tools": TOOLS,
    },
    "calls_results_alias": {
        "messages": [
            *_calls(_W1, _S1, _W2),
            _result("get_weather:2", "Rainy"),
            _result("search:1", "Found"),
            _result("get_weather:0", "Sunny"),
        ],
        "tools": TOOLS,
    },
    "calls_results_unresolved": {
        "messages": [*_calls(_W1, _S1), _result("call_s", "Found"), _result("call_zzz", "Lost")],
        "tools": TOOLS,
    },
    "calls_results_missing_id": {
        "messages": [*_calls(_W1, _S1), _result("call_s", "Found"), _result(None, "No id")],
        "tools": TOOLS,
    },
    "calls_results_duplicate_ref": {
        "messages": [
            *_calls(_W1, _S1),
            _result("call_s", "B"),
            _result("call_w", "A"),
            _result("call_s", "C"),
        ],
        "tools": TOOLS,
    },
    "calls_no_call_id": {
        "messages": [*_calls(_NOID, _W1), _result("call_w", "Sunny"), _result("search:0", "Found")],
        "tools": TOOLS,
    },
    "calls_then_followup": {
        "messages": [
            *_calls(_W1, _S1, reasoning="Use both."),
            _result("call_s", "Found"),
            _result("call_w", "Sunny"),
            {"role": "assistant", "content": "Sunny and found."},
            {"role": "user", "content": "Thanks"},
        ],
        "tools": TOOLS,
    },
    "calls_dict_arguments": {
        "messages": [
            {"role": "user", "content": "W?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {
                            "name": "get_weather",
                            "arguments": '{"city": "Oslo", "days": 3}',
                        },
                    },
                ],
            },
            _result("c1", "Cold"),
        ],
        "tools": TOOLS,
    },
    "thinking_false": {"messages": [_USER], "chat_template_kwargs": {"thinking": False}},
    "thinking_true": {"messages": [_USER], "chat_template_kwargs": {"thinking": True}},
    "enable_thinking_false": {
        "messages": [_USER],
        "chat_template_kwargs": {"enable_thinking": False},
    },
    "enable_thinking_vs_thinking": {
        "messages": [_USER],
        "chat_template_kwargs": {"enable_thinking": False, "thinking": True},
    },
    "effort_none": {"messages": [_USER], "reasoning_effort": "none"},
    "effort_low": {"messages": [_USER], "reasoning_effort": "low"},
    "effort_high": {"messages": [_USER], "reasoning_effort": "high"},
    "effort_max": {"messages": [_USER], "reasoning_effort": "max"},
    "effort_medium": {"messages": [_USER], "reasoning_effort": "medium"},
    "effort_minimal": {"messages": [_USER], "reasoning_effort": "minimal"},
    "effort_xhigh": {"messages": [_USER], "reasoning_effort": "xhigh"},
    "effort_with_enable_false": {
        "messages": [_USER],
        "reasoning_effort": "high",
        "chat_template_kwargs": {"enable_thinking": False},
    },
    "effort_kw_thinking_effort": {
        "messages": [_USER],
        "chat_template_kwargs": {"thinking_effort": "low"},
    },
    "effort_kw_thinking_effort_bad": {
        "messages": [_USER],
        "chat_template_kwargs": {"thinking_effort": "medium"},
    },
    "effort_kw_both": {
        "messages": [_USER],
        "reasoning_effort": "low",
        "chat_template_kwargs": {"thinking_effort": "max"},
    },
    "effort_kw_reasoning_effort": {
        "messages": [_USER],
        "chat_template_kwargs": {"reasoning_effort": "max"},
    },
    "effort_kw_reasoning_effort_int": {
        "messages": [_USER],
        "chat_template_kwargs": {"reasoning_effort": 30},
    },
    "response_format_json": {"messages": [_USER], "response_format": {"type": "json_object"}},
    "response_format_schema": {"messages": [_USER], "response_format": _SCHEMA},
    "response_format_text": {"messages": [_USER], "response_format": {"type": "text"}},
    "response_format_with_tools": {
        "messages": [_USER],
        "tools": TOOLS,
        "tool_choice": "required",
        "response_format": {"type": "json_object"},
    },
    "documents": {"messages": [_USER], "documents": [{"title": "Doc", "text": "Body."}]},
    "custom_kwarg": {
        "messages": [_USER],
        "chat_template_kwargs": {"custom_flag": "x", "documents": ["d"]},
    },
    "return_offsets": {"messages": [_USER], "return_token_offsets": True},
    "truncate": {
        "messages": [{"role": "system", "content": "Be brief."}, _USER],
        "truncate_prompt_tokens": 5,
    },
    "max_tokens_over": {"messages": [_USER], "max_tokens": 40000},
    "request_template_untrusted": {
        "messages": [_USER],
        "chat_template": "{{ messages[0].content }}",
    },
    "tok_simple": {"_endpoint": "tokenize", "messages": [_USER]},
    "tok_strs": {"_endpoint": "tokenize", "messages": [_USER], "return_token_strs": True},
    "tok_tools_calls": {
        "_endpoint": "tokenize",
        "messages": [*_calls(_W1, _S1), _result("call_s", "Found"), _result("call_w", "Sunny")],
        "tools": TOOLS,
    },
    "tok_no_gen": {"_endpoint": "tokenize", "messages": [_USER], "add_generation_prompt": False},
    "tok_continue": {
        "_endpoint": "tokenize",
        "messages": [_USER, {"role": "assistant", "content": "Part"}],
        "add_generation_prompt": False,
        "continue_final_message": True,
    },
    "tok_thinking_kwargs": {
        "_endpoint": "tokenize",
        "messages": [_USER],
        "chat_template_kwargs": {"enable_thinking": False},
    },
    "tok_effort_kw_bad": {
        "_endpoint": "tokenize",
        "messages": [_USER],
        "chat_template_kwargs": {"reasoning_effort": "medium"},
    },
    "tok_special_tokens": {
        "_endpoint": "tokenize",
        "messages": [_USER],
        "add_special_tokens": True,
    },
    # Last: vLLM re-raises template errors after answering, which drops the connection.
    "unknown_role": {"messages": [{"role": "narrator", "content": "Once."}, _USER]},
}

# Fewer cases for the configs that only check which renderer is selected.
SELECT: dict[str, Body] = {
    name: CORE[name]
    for name in (
        "simple",
        "system",
        "content_parts",
        "multi_turn",
        "tools",
        "tools_required",
        "tools_named",
        "calls_results_reversed",
        "calls_results_alias",
        "thinking_false",
        "enable_thinking_false",
        "effort_none",
        "effort_high",
        "effort_medium",
        "response_format_json",
        "continue_final",
        "tok_simple",
        "tok_tools_calls",
        "tok_effort_kw_bad",
        "unknown_role",
    )
}

RENDER_CASES: dict[str, dict[str, Body]] = {"core": CORE, "select": SELECT}
