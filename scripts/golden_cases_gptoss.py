"""gpt-oss (Harmony) case formats for the parser golden corpus (imported with `--cases-module`).

Adds whole case lists `gptoss_tools` and `gptoss_reasoning` to `golden_cases.CASE_LISTS`
(configs name them as `"cases": ["list", NAME]`). The outputs are what gpt-oss samples after a prompt ending in
`<|start|>assistant`: Harmony messages with their own end tokens (`<|end|>`, `<|call|>`,
`<|return|>`), so the configs set `"append_eos": false`.
"""

from __future__ import annotations

import json
from typing import Any

import golden_cases as gc
from golden_cases import Call, Case

NEXT = "<|start|>assistant"
ANALYSIS = "<|channel|>analysis<|message|>"
FINAL = "<|channel|>final<|message|>"
GET_WEATHER = '{"city": "Paris", "unit": "celsius"}'


def _args(args: dict[str, Any]) -> str:
    return json.dumps(args, ensure_ascii=False)


def call(name: str, args: str, header: str = "commentary to=functions.{name} <|constrain|>json") -> str:
    return f"<|channel|>{header.format(name=name)}<|message|>{args}<|call|>"


def calls(items: list[Call]) -> str:
    return NEXT.join(call(n, _args(a)) for n, a in items)


def reasoning(text: str) -> str:
    return f"{ANALYSIS}{text}<|end|>{NEXT}"


def tool_cases() -> list[Case]:
    one = call("get_weather", GET_WEATHER)
    return [
        Case("plain", f"{FINAL}The capital of France is Paris.<|return|>"),
        Case("reasoning_only", f"{ANALYSIS}I should think about the weather.<|end|>", finish_reason="length"),
        Case("reasoning_and_content", reasoning("Short thought.") + f"{FINAL}The answer is 42.<|return|>"),
        Case("one_call", reasoning("Need weather data.") + one),
        Case("one_call_no_reasoning", one),
        Case(
            "recipient_in_role",
            reasoning("Call it.")
            + f" to=functions.get_weather<|channel|>commentary json<|message|>{GET_WEATHER}<|call|>",
        ),
        Case("parallel_calls", reasoning("Two lookups.") + calls(gc.PARALLEL)),
        Case("text_before_call", f"<|channel|>commentary<|message|>Let me check that for you.<|end|>{NEXT}" + one),
        Case(
            "text_around_call",
            f"{FINAL}Sure.<|end|>{NEXT}" + one + f"{NEXT}{FINAL}Done.<|return|>",
        ),
        Case("unicode_nested", reasoning("Caf\u00e9 \u2615 \u6771\u4eac.") + calls(gc.NESTED)),
        Case("malformed_json", call("get_weather", '{"city": "Paris"')),
        Case("non_json_content_type", call("get_weather", "city=Paris", "commentary to=functions.{name} code")),
        Case("bare_recipient", call("get_weather", GET_WEATHER, "commentary to=get_weather <|constrain|>json")),
        Case(
            "builtin_recipient",
            call("python", "print(1)", "analysis to=python code") + f"{NEXT}{FINAL}Done.<|return|>",
        ),
        Case(
            "malformed_header",
            "<|channel|>commentary to=functions.get_weather extra words json<|message|>"
            + GET_WEATHER
            + f"<|call|>{NEXT}{FINAL}After.<|return|>",
        ),
        Case("empty_channel", f"<|channel|><|message|>Nothing.<|end|>{NEXT}{FINAL}Fine.<|return|>"),
        Case("no_channel", f"<|message|>No channel.<|end|>{NEXT}{FINAL}Fine.<|return|>"),
        Case("two_finals", f"{FINAL}First.<|end|>{NEXT}{FINAL}Second.<|return|>"),
        Case(
            "user_message",
            f"{FINAL}Answer.<|end|><|start|>user<|channel|>final<|message|>Question?<|end|>",
            finish_reason="length",
        ),
        Case("after_return", f"{FINAL}Done.<|return|>trailing words", finish_reason="length"),
        Case("empty_call_args", call("get_weather", "")),
        Case("cut_off", reasoning("Thinking.") + f"{FINAL}The answer is", finish_reason="length"),
        Case("cut_off_call", reasoning("Need weather.") + call("get_weather", GET_WEATHER)[:-14], finish_reason="length"),
        Case("cut_off_header", reasoning("Need weather.") + "<|channel|>commentary to=functions.get", finish_reason="length"),
        Case("cut_off_first_header", "<|channel|>analy", finish_reason="length"),
        Case("rare_unicode", f"{FINAL}\U0001d518\U0001d52b \U0001f99c\U0001f9a9 \u0f00\u0f01 \ua9c1<|return|>"),
        Case("tool_choice_none", reasoning("Need weather.") + one, request={"tool_choice": "none"}),
        Case("no_tools_in_request", reasoning("Need weather.") + one, with_tools=False),
        Case("tool_choice_required", one, request={"tool_choice": "required"}),
        Case(
            "tool_choice_named",
            one,
            request={"tool_choice": {"type": "function", "function": {"name": "get_weather"}}},
        ),
        Case("parallel_false", calls(gc.PARALLEL), request={"parallel_tool_calls": False}),
        Case(
            "include_reasoning_false",
            reasoning("Hidden thought.") + one,
            request={"include_reasoning": False},
        ),
        Case(
            "include_reasoning_false_text",
            reasoning("Hidden thought.") + f"{FINAL}Visible.<|return|>",
            request={"include_reasoning": False},
        ),
    ]


def reasoning_cases() -> list[Case]:
    return [
        Case("plain", f"{FINAL}The capital of France is Paris.<|return|>", with_tools=False),
        Case("reasoning_only", f"{ANALYSIS}Let me think step by step.<|end|>", finish_reason="length", with_tools=False),
        Case("reasoning_and_content", reasoning("Two plus two.") + f"{FINAL}The answer is 4.<|return|>", with_tools=False),
        Case("unterminated", f"{ANALYSIS}Still thinking about it", finish_reason="length", with_tools=False),
        Case(
            "unicode",
            reasoning("Caf\u00e9 \u2615 \u6771\u4eac") + f"{FINAL}\u3053\u3093\u306b\u3061\u306f \U0001f600<|return|>",
            with_tools=False,
        ),
        Case(
            "include_reasoning_false",
            reasoning("Hidden thought.") + f"{FINAL}Visible.<|return|>",
            request={"include_reasoning": False},
            with_tools=False,
        ),
        Case("call_without_tool_parser", reasoning("Need weather.") + call("get_weather", GET_WEATHER)),
        Case("cut_off_header", reasoning("Hmm.") + "<|channel|>fin", finish_reason="length", with_tools=False),
    ]


# Whole case lists, for configs with "cases": ["list", NAME] (see record_vllm_golden.cases_for).
CASE_LISTS = getattr(gc, "CASE_LISTS", {})
CASE_LISTS.update({"gptoss_tools": tool_cases, "gptoss_reasoning": reasoning_cases})
gc.CASE_LISTS = CASE_LISTS  # type: ignore[attr-defined]


# ---- chat render (vLLM renders gpt-oss chats with Harmony, not the chat template) ----------
_HISTORY: list[dict[str, Any]] = [
    {"role": "user", "content": "Weather in Paris?"},
    {
        "role": "assistant",
        "content": None,
        "reasoning": "Need the weather tool.",
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": GET_WEATHER}}
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "Sunny, 21 C"},
]
_USER = [{"role": "user", "content": "Hi"}]

# tool_choice required / named renders (strict: Harmony's structural tag; lax: the JSON schema).
_FORCED_CHOICES: dict[str, dict[str, Any]] = {
    "tool_choice_required": {"messages": _USER, "tools": gc.TOOLS, "tool_choice": "required"},
    "tool_choice_named": {
        "messages": _USER,
        "tools": gc.TOOLS,
        "tool_choice": {"type": "function", "function": {"name": "search"}},
    },
    "required_single_call": {
        "messages": _USER, "tools": gc.TOOLS, "tool_choice": "required", "parallel_tool_calls": False,
    },
}

RENDER_CASES: dict[str, dict[str, dict[str, Any]]] = {
    "gptoss": {
        "simple": {"messages": _USER},
        "system": {"messages": [{"role": "system", "content": "Be brief."}, *_USER]},
        "developer": {"messages": [{"role": "developer", "content": "Answer in French."}, *_USER]},
        "system_parts": {
            "messages": [
                {"role": "system", "content": [{"type": "text", "text": "Be "}, {"type": "text", "text": "brief."}]},
                *_USER,
            ]
        },
        "second_system": {
            "messages": [*_USER, {"role": "system", "content": "Late rule."}, {"role": "user", "content": "Ok?"}]
        },
        "tools": {"messages": [{"role": "user", "content": "Weather in Paris?"}], "tools": gc.TOOLS},
        "tools_system": {
            "messages": [{"role": "system", "content": "Use tools."}, {"role": "user", "content": "W?"}],
            "tools": gc.TOOLS,
        },
        "tool_choice_none": {"messages": _USER, "tools": gc.TOOLS, "tool_choice": "none"},
        "tool_results": {"messages": _HISTORY, "tools": gc.TOOLS},
        "tool_results_content": {
            "messages": [
                _HISTORY[0],
                {**_HISTORY[1], "content": "Let me check."},
                _HISTORY[2],
            ],
            "tools": gc.TOOLS,
        },
        "parallel_results": {
            "messages": [
                {"role": "user", "content": "Tokyo and ramen?"},
                {
                    "role": "assistant",
                    "tool_calls": [
                        {"id": "a", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Tokyo"}'}},
                        {"id": "b", "type": "function", "function": {"name": "search", "arguments": '{"query": "ramen"}'}},
                    ],
                },
                {"role": "tool", "tool_call_id": "a", "content": "Rain"},
                {"role": "tool", "tool_call_id": "b", "content": [{"type": "text", "text": "Ichiran"}]},
            ],
            "tools": gc.TOOLS,
        },
        "multi_turn": {
            "messages": [
                *_USER,
                {"role": "assistant", "content": "Hello! \U0001f44b", "reasoning": "greet"},
                {"role": "user", "content": "\u65e5\u672c\u8a9e\u3067?"},
            ]
        },
        "multi_turn_reasoning_kept": {
            "messages": [
                *_USER,
                {"role": "assistant", "content": "Hello!", "reasoning": "greet"},
                {"role": "user", "content": "Again"},
                {"role": "assistant", "content": None, "reasoning": "Still thinking", "tool_calls": _HISTORY[1]["tool_calls"]},
                _HISTORY[2],
            ],
            "tools": gc.TOOLS,
        },
        "effort_low": {"messages": _USER, "reasoning_effort": "low"},
        "effort_high": {"messages": _USER, "reasoning_effort": "high"},
        "effort_none": {"messages": _USER, "reasoning_effort": "none"},
        "multi_part_user": {"messages": [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}]},
        "empty_user": {"messages": [{"role": "user", "content": ""}]},
        "special_text": {"messages": [{"role": "user", "content": "say <|end|> and <|start|>"}]},
        "max_tokens": {"messages": _USER, "max_tokens": 50, "temperature": 0.2},
        "no_reasoning_out": {"messages": _USER, "include_reasoning": False},
        "tokenize_chat": {"_endpoint": "/tokenize", "messages": [{"role": "system", "content": "Be brief."}, *_USER]},
        "tokenize_tools": {"_endpoint": "/tokenize", "messages": _HISTORY, "tools": gc.TOOLS, "return_token_strs": True},
        "tokenize_no_generation_prompt": {"_endpoint": "/tokenize", "messages": _USER, "add_generation_prompt": False},
        **_FORCED_CHOICES,
        "auto_strict_tool": {
            "messages": _USER,
            "tools": [{**gc.TOOLS[0], "function": {**gc.TOOLS[0]["function"], "strict": True}}],
        },
        "auto_with_response_format": {
            "messages": _USER,
            "tools": gc.TOOLS,
            "response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}}},
        },
        "json_object": {"messages": _USER, "response_format": {"type": "json_object"}},
        "response_format": {
            "messages": _USER,
            "response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}}},
        },
        "regex_output": {"messages": _USER, "structured_outputs": {"regex": "[a-z]+"}},
        "choice_output": {"messages": _USER, "structured_outputs": {"choice": ["yes", "no"]}},
        "grammar_output": {"messages": _USER, "structured_outputs": {"grammar": 'root ::= "ok"'}},
        "required_with_regex": {
            "messages": _USER, "tools": gc.TOOLS, "tool_choice": "required", "structured_outputs": {"regex": "x"},
        },
    },
    # VLLM_ENFORCE_STRICT_TOOL_CALLING=0: required / named force the tool JSON schema as it is
    # (only the request's own output format becomes a channel tag).
    "gptoss_lax": {
        "auto": {"messages": _USER, "tools": gc.TOOLS},
        **_FORCED_CHOICES,
        "required_with_json_object": {
            "messages": _USER, "tools": gc.TOOLS, "tool_choice": "required",
            "response_format": {"type": "json_object"},
        },
        "required_with_regex": {
            "messages": _USER, "tools": gc.TOOLS, "tool_choice": "required", "structured_outputs": {"regex": "x"},
        },
    },
}
