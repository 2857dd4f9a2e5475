"""Group B case formats for the parser golden corpus (see scripts/golden_cases.py).

Imported by `record_vllm_golden.py --cases-module golden_cases_groupb`: adds the formats of
ling3, nemotron_v3, granite_thinking_parser, gigachat3 and granite-20b-fc, and a few extra
scenarios (thinking switches, `force_nonempty_content`, format-specific extra outputs).
"""

from __future__ import annotations

import golden_cases as gc
from golden_cases import NESTED, ONE, PARALLEL, Call, Case, ParserFormat, _json


def gigachat3(calls: list[Call]) -> str:
    return "".join(f'<|function_call|>{{"name": "{n}", "arguments": {_json(a)}}}' for n, a in calls)


def apertus(calls: list[Call]) -> str:
    body = ", ".join(f'{{"{n}": {_json(a)}}}' for n, a in calls)
    return f"<|tools_prefix|>[{body}]<|tools_suffix|>"


def hy_v3(calls: list[Call]) -> str:
    inner = "".join(
        f"<tool_call>{n}<tool_sep>"
        + "".join(f"<arg_key>{k}</arg_key><arg_value>{gc._xml_value(v)}</arg_value>" for k, v in a.items())
        + "</tool_call>"
        for n, a in calls
    )
    return f"<tool_calls>{inner}</tool_calls>"


def hy_v4(calls: list[Call]) -> str:
    return hy_v3(calls).replace("<tool_sep>", "")


def granite_20b_fc(calls: list[Call]) -> str:
    return " ".join(f'<function_call> {{"name": "{n}", "arguments": {_json(a)}}}' for n, a in calls)


gc.FORMATS.update(
    {
        "ling3": ParserFormat(
            gc.glm47,
            malformed="<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris",
            extra_outputs={
                "unknown_tool": "<tool_call>lookup<arg_key>q</arg_key><arg_value>x</arg_value></tool_call>",
                "think_then_call_no_end": "<think>plan<tool_call>get_weather<arg_key>city</arg_key><arg_value>Rome</arg_value></tool_call>",
                "no_args": "<tool_call>get_weather</tool_call>",
            },
        ),
        "nemotron_v3": ParserFormat(
            gc.qwen3_xml,
            malformed="<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</function>",
            extra_outputs={
                "call_in_reasoning": "<think>plan\n<tool_call>\n<function=get_weather>\n<parameter=city>\nRome\n</parameter>\n</function>\n</tool_call>",
                "trailing_ws_reasoning": "<think>plan  \n\n</think>\n\nAnswer.",
            },
        ),
        "granite_thinking": ParserFormat(
            gc.qwen3_xml,
            think=("<think>", "\n</think>\n"),
            malformed="<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</function>",
            extra_outputs={
                "newline_call": "<think>x\n</think>\n\n" + gc.qwen3_xml(ONE),
            },
        ),
        "gigachat3": ParserFormat(
            gigachat3,
            think=None,
            malformed='<|function_call|>{"name": "get_weather", "arguments": {"city": "Paris"',
            extra_outputs={
                "role_sep_opener": 'function call<|role_sep|>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}',
                "message_sep": "Some text<|message_sep|>more text",
                "eos_suffix": '<|function_call|>{"name": "search", "arguments": {"query": "x"}}</s>',
                "string_args": '<|function_call|>{"name": "search", "arguments": "{\\"query\\": 1}"}',
                "no_name": '<|function_call|>{"arguments": {"query": "x"}}',
            },
        ),
        "granite-20b-fc": ParserFormat(
            granite_20b_fc,
            think=None,
            malformed='<function_call> {"name": "get_weather", "arguments": {"city": "Paris"',
            extra_outputs={
                "no_space": '<function_call>{"name": "search", "arguments": {"query": "a b"}}',
                "newline_sep": '<function_call> {"name": "search", "arguments": {}}\n<function_call> {"name": "get_weather", "arguments": {"city": "X"}}',
                "missing_args": '<function_call> {"name": "search"}',
                "trailing_text": '<function_call> {"name": "search", "arguments": {"query": "q"}} trailing words',
            },
        ),
    }
)

gc.FORMATS.update(
    {
        "poolside_v1": ParserFormat(
            gc.glm45,
            malformed="<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris",
            extra_outputs={
                "empty_name": "<tool_call></tool_call>Hi",
                "no_args": "<tool_call>get_weather\n</tool_call>",
                "python_literal": "<tool_call>search\n<arg_key>query</arg_key><arg_value>q</arg_value>"
                "<arg_key>filters</arg_key><arg_value>{'a': True, 'b': None}</arg_value>"
                "<arg_key>limit</arg_key><arg_value> 7 </arg_value></tool_call>",
                "duplicate_key": "<tool_call>get_weather\n<arg_key>city</arg_key><arg_value>A</arg_value>"
                "<arg_key>city</arg_key><arg_value>B</arg_value></tool_call>",
                "escapes": '<tool_call>search\n<arg_key>query</arg_key><arg_value>line1\nline "2" \\ tab\t</arg_value></tool_call>',
                "cut_in_string": "<tool_call>search\n<arg_key>query</arg_key><arg_value>partial va",
            },
        ),
        "apertus": ParserFormat(
            apertus,
            think=None,
            malformed='<|tools_prefix|>[{"get_weather": {"city": "Paris"}',
            extra_outputs={
                "text_after": '<|tools_prefix|>[{"search": {"query": "x"}}]<|tools_suffix|> Done.',
                "trailing_in_block": '<|tools_prefix|>[{"search": {"query": "x"}}] tail<|tools_suffix|>',
                "no_suffix": '<|tools_prefix|>[{"search": {"query": "x", "limit": 10}}]',
                "single_object": '<|tools_prefix|>{"search": {"query": "x"}}<|tools_suffix|>',
                "numbers": '<|tools_prefix|>[{"search": {"query": "x", "score": 12.5, "limit": 100}}]<|tools_suffix|>',
                "empty_args": '<|tools_prefix|>[{"get_weather": {}}]<|tools_suffix|>',
            },
        ),
    }
)

gc.FORMATS.update(
    {
        "hy_v3": ParserFormat(
            hy_v3,
            malformed="<tool_calls><tool_call>get_weather<tool_sep><arg_key>city</arg_key><arg_value>Paris",
            extra_outputs={
                "typed_values": "<tool_calls><tool_call>search<tool_sep><arg_key>query</arg_key><arg_value>42</arg_value>"
                "<arg_key>limit</arg_key><arg_value>7</arg_value><arg_key>exact</arg_key><arg_value>TRUE</arg_value>"
                "<arg_key>score</arg_key><arg_value>1e2</arg_value><arg_key>tags</arg_key><arg_value>['a', 'b']</arg_value>"
                "<arg_key>other</arg_key><arg_value>{'x': None}</arg_value></tool_call></tool_calls>",
                "no_outer_end": "<tool_calls><tool_call>get_weather<tool_sep><arg_key>city</arg_key><arg_value>Oslo</arg_value></tool_call>",
                "no_call_end": "<tool_calls><tool_call>get_weather<tool_sep><arg_key>city</arg_key><arg_value>Oslo</arg_value>",
                "escapes": '<tool_calls><tool_call>search<tool_sep><arg_key>query</arg_key><arg_value>a "q"\\n\ttab</arg_value></tool_call></tool_calls>',
                "text_after": "<tool_calls><tool_call>get_weather<tool_sep></tool_call></tool_calls> after",
                "unknown_tool": "<tool_calls><tool_call>lookup<tool_sep><arg_key>n</arg_key><arg_value>5</arg_value></tool_call></tool_calls>",
            },
        ),
    }
)

gc.FORMATS.update(
    {
        "hy_v4": ParserFormat(
            hy_v4,
            malformed="<tool_calls><tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris",
            extra_outputs={
                key: text.replace("<tool_sep>", "")
                for key, text in gc.FORMATS["hy_v3"].extra_outputs.items()
            }
            | {
                "stray_text_in_args": "<tool_calls><tool_call>get_weather<arg_key>city</arg_key><arg_value>A</arg_value> junk</tool_call></tool_calls>",
                "two_blocks_one_stream": "<tool_calls><tool_call>get_weather<arg_key>city</arg_key><arg_value>A</arg_value></tool_call>"
                "<tool_call>search<arg_key>query</arg_key><arg_value>q</arg_value></tool_call></tool_calls>",
            },
        ),
    }
)

gc.REASONING_FORMATS.update(
    {
        "hy_v3": ("<think>", "</think>"),
        "poolside_v1": ("<think>", "</think>"),
        "ling3": ("<think>", "</think>"),
        "nemotron_v3": ("<think>", "</think>"),
        "granite_thinking": ("<think>", "\n</think>\n\n"),
    }
)

_base_tool_cases = gc.tool_cases
_base_reasoning_cases = gc.reasoning_cases


def tool_cases(fmt: ParserFormat) -> list[Case]:
    cases = _base_tool_cases(fmt)
    cases += [Case(f"extra_{key}", text) for key, text in fmt.extra_outputs.items()]
    if fmt.think:
        start, end = fmt.think
        cases += [
            Case("reasoning_cut_off", f"{start}Still thinking", finish_reason="length"),
            Case(
                "thinking_disabled_call",
                fmt.calls(ONE) if fmt.calls else "",
                request={"chat_template_kwargs": {"enable_thinking": False}},
            ),
            Case("reasoning_parallel", f"{start}Two calls.{end}" + (fmt.calls(PARALLEL) if fmt.calls else "")),
            Case("reasoning_unicode_nested", f"{start}東京?{end}" + (fmt.calls(NESTED) if fmt.calls else "")),
        ]
    return cases


def reasoning_cases(start: str, end: str) -> list[Case]:
    no_tools = {"with_tools": False}
    return _base_reasoning_cases(start, end) + [
        Case("force_content_unterminated", f"{start}Only thinking here", finish_reason="length",
             request={"chat_template_kwargs": {"force_nonempty_content": True}}, **no_tools),
        Case("force_content_with_answer", f"{start}Think.{end}Answer.",
             request={"chat_template_kwargs": {"force_nonempty_content": True}}, **no_tools),
        Case("force_content_empty_answer", f"{start}Think.{end}",
             request={"chat_template_kwargs": {"force_nonempty_content": True}}, **no_tools),
        Case("thinking_disabled_with_tags", f"{start}Tagged.{end}Rest.",
             request={"chat_template_kwargs": {"enable_thinking": False}}, **no_tools),
        Case("thinking_off_kwarg", f"{start}Tagged.{end}Rest.",
             request={"chat_template_kwargs": {"thinking": False}}, **no_tools),
        Case("newlines_after_end", f"{start}Think.{end}\n\nAnswer.\n", **no_tools),
        Case("trailing_ws_reasoning", f"{start}Think.  \n{end}Answer.", **no_tools),
        Case("double_end", f"{start}A{end}B{end}C", **no_tools),
    ]


gc.tool_cases = tool_cases
gc.reasoning_cases = reasoning_cases
