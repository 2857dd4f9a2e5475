"""Cohere Command case formats for the parser golden corpus (imported with `--cases-module`).

Adds `cohere_command3` / `cohere_command4` to `golden_cases.FORMATS` / `REASONING_FORMATS`:
calls are `<|START_ACTION|>` + a JSON list of `{"tool_call_id", "tool_name", "parameters"}` +
`<|END_ACTION|>`, reasoning is `<|START_THINKING|>...<|END_THINKING|>` and the answer
`<|START_RESPONSE|>...<|END_RESPONSE|>` (Command A) or `<|START_TEXT|>...<|END_TEXT|>`.
Extra scenarios cover the framing, citations, whitespace trimming, pretty-printed and odd
action lists, and tool_choice required / named / parallel_tool_calls.
"""

from __future__ import annotations

import json
from typing import Any

import golden_cases as gc
from golden_cases import NESTED, ONE, PARALLEL, Call, Case, ParserFormat

THINK = ("<|START_THINKING|>", "<|END_THINKING|>")
RESP = ("<|START_RESPONSE|>", "<|END_RESPONSE|>")
TEXT = ("<|START_TEXT|>", "<|END_TEXT|>")
ACT = ("<|START_ACTION|>", "<|END_ACTION|>")


def _items(calls: list[Call]) -> list[dict[str, Any]]:
    return [{"tool_call_id": str(i), "tool_name": n, "parameters": a} for i, (n, a) in enumerate(calls)]


def action(calls: list[Call]) -> str:
    return ACT[0] + json.dumps(_items(calls), ensure_ascii=False) + ACT[1]


def pretty_action(calls: list[Call]) -> str:
    return ACT[0] + json.dumps(_items(calls), ensure_ascii=False, indent=4) + ACT[1]


def _extras() -> dict[str, str]:
    one = action(ONE)
    return {
        "response_wrapped": f"{RESP[0]}The answer is 42.{RESP[1]}",
        "text_wrapped": f"{TEXT[0]}The answer is 42.{TEXT[1]}",
        "full_turn": f"{THINK[0]}Plan it.{THINK[1]}{RESP[0]}Here it is.{RESP[1]}",
        "plan_then_call": f"{THINK[0]}I will look up the weather in Paris.{THINK[1]}{one}",
        "pretty_call": f"{THINK[0]}Plan.{THINK[1]}" + pretty_action(PARALLEL),
        "pretty_nested": pretty_action(NESTED),
        "call_then_response": f"{one}{RESP[0]}Checking.{RESP[1]}",
        "response_then_call": f"{RESP[0]}Checking.{RESP[1]}{one}",
        "citations": f"{RESP[0]}It is <co>sunny</co: 0:[0]> in Paris and <co>warm</co: 0:[0,1]>.{RESP[1]}",
        "thinking_citation": f"{THINK[0]}Doc says <co>rain</co: 1:[2]>.{THINK[1]}{RESP[0]}Rain.{RESP[1]}",
        "whitespace": f"{THINK[0]}\n  Plan with spaces.  \n{THINK[1]}{RESP[0]}  Answer.  \n\n{RESP[1]}",
        "inner_whitespace": f"{RESP[0]}Line one.\n\nLine two.   Three.{RESP[1]}",
        "empty_params": ACT[0] + '[{"tool_call_id": "0", "tool_name": "search", "parameters": {}}]' + ACT[1],
        "no_call_id": ACT[0] + '[{"tool_name": "get_weather", "parameters": {"city": "Rome"}}]' + ACT[1],
        "bad_json_action": f"{ACT[0]}not json at all{ACT[1]}",
        "empty_list": f"{ACT[0]}[]{ACT[1]}",
        "brackets_in_strings": ACT[0]
        + json.dumps(_items([("search", {"query": 'a]}b{"[c', "tags": ["x]", "{y"]})]))
        + ACT[1],
        "escapes": ACT[0]
        + json.dumps(_items([("search", {"query": "line\nbreak \\ back \"q\" \u00e9 \U0001f600"})]))
        + ACT[1],
        "ws_before_list": f"{ACT[0]}\n  " + json.dumps(_items(ONE)) + f"\n{ACT[1]}",
        "params_first": ACT[0]
        + '[{"parameters": {"city": "Oslo"}, "tool_name": "get_weather", "tool_call_id": "0"}]'
        + ACT[1],
        "string_params": ACT[0] + '[{"tool_call_id": "0", "tool_name": "search", "parameters": "raw"}]' + ACT[1],
        "two_actions": action(ONE) + action([("search", {"query": "x"})]),
        "unclosed_thinking": f"{THINK[0]}Never closed and then {RESP[0]}answer{RESP[1]}",
        "end_response_then_text": f"{RESP[0]}Answer.{RESP[1]} trailing words",
        "lt_in_text": f"{RESP[0]}a < b and <c> <|x|> done{RESP[1]}",
    }


_FMT = ParserFormat(
    action,
    think=THINK,
    malformed=ACT[0] + '[{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris"}' + ACT[1],
    extra_outputs=_extras(),
)

gc.FORMATS.update({"cohere_command3": _FMT, "cohere_command4": _FMT})
gc.REASONING_FORMATS.update({"cohere_command3": THINK, "cohere_command4": THINK})

_base_tool_cases = gc.tool_cases
_base_reasoning_cases = gc.reasoning_cases


def _forced_cases() -> list[Case]:
    named = {"tool_choice": {"type": "function", "function": {"name": "get_weather"}}}
    return [
        Case("required_call", action(ONE), request={"tool_choice": "required"}),
        Case("required_plain", "No tool needed.", request={"tool_choice": "required"}),
        Case("required_reasoning_call", f"{THINK[0]}Must call.{THINK[1]}" + action(PARALLEL),
             request={"tool_choice": "required"}),
        Case("named_call", action(ONE), request=named),
        Case("named_json_args", '{"city": "Paris"}', request=named),
        Case("parallel_false", action(PARALLEL), request={"parallel_tool_calls": False}),
        Case("include_reasoning_false", f"{THINK[0]}Hidden.{THINK[1]}" + action(ONE),
             request={"include_reasoning": False}),
        Case("auto_explicit", action(ONE), request={"tool_choice": "auto"}),
        Case("reasoning_cut_off", f"{THINK[0]}Still thinking", finish_reason="length"),
        Case("cut_off_pretty", pretty_action(PARALLEL)[:120], finish_reason="length"),
        Case("cut_in_name", ACT[0] + '[{"tool_call_id": "0", "tool_name": "get_wea', finish_reason="length"),
    ]


def tool_cases(fmt: ParserFormat) -> list[Case]:
    cases = _base_tool_cases(fmt)
    if fmt is _FMT:
        cases += [Case(f"extra_{key}", text) for key, text in fmt.extra_outputs.items()]
        cases += _forced_cases()
    return cases


def reasoning_cases(start: str, end: str) -> list[Case]:
    cases = _base_reasoning_cases(start, end)
    if (start, end) == THINK:
        no_tools = {"with_tools": False}
        cases += [
            Case(f"extra_{key}", text, **no_tools)
            for key, text in _extras().items()
            if key in ("response_wrapped", "text_wrapped", "full_turn", "citations", "whitespace",
                       "plan_then_call", "call_then_response", "unclosed_thinking", "lt_in_text")
        ]
        cases.append(Case("call_with_tools", action(ONE)))
    return cases


gc.tool_cases = tool_cases
gc.reasoning_cases = reasoning_cases
