"""Group C case formats for the parser golden corpus (imported with `--cases-module`).

Adds the output formats of kimi_k3, k2_horizon, olmo3, plamo3, muse, inkling, functiongemma,
gemma4 and qwen3_json to `golden_cases.FORMATS` / `REASONING_FORMATS`.
"""

from __future__ import annotations

import json
from typing import Any

import golden_cases as gc
from golden_cases import Call, ParserFormat


def _js(v: Any) -> str:
    return json.dumps(v, ensure_ascii=False)


def _py_json_value(v: Any) -> str:
    """Olmo 3 writes Python calls with JSON literals (true/false/null, double quotes)."""
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_js(k)}: {_py_json_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_py_json_value(x) for x in v) + "]"
    return _js(v)


def olmo3(calls: list[Call]) -> str:
    lines = "\n".join(
        f"{n}(" + ", ".join(f"{k}={_py_json_value(v)}" for k, v in a.items()) + ")" for n, a in calls
    )
    return f"<function_calls>{lines}</function_calls>"


PLAMO_REQS = ("<|plamo:begin_tool_requests:plamo|>", "<|plamo:end_tool_requests:plamo|>")
PLAMO_REQ = ("<|plamo:begin_tool_request:plamo|>", "<|plamo:end_tool_request:plamo|>")
PLAMO_NAME = ("<|plamo:begin_tool_name:plamo|>", "<|plamo:end_tool_name:plamo|>")
PLAMO_ARGS = (
    "<|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>",
    "<|plamo:end_tool_arguments:plamo|>",
)


def plamo3(calls: list[Call]) -> str:
    inner = "".join(
        f"{PLAMO_REQ[0]}{PLAMO_NAME[0]}{n}{PLAMO_NAME[1]}{PLAMO_ARGS[0]}{_js(a)}{PLAMO_ARGS[1]}{PLAMO_REQ[1]}"
        for n, a in calls
    )
    return f"{PLAMO_REQS[0]}{inner}{PLAMO_REQS[1]}"


PLAMO_THINK = ("<|plamo:begin_think:plamo|>", "<|plamo:end_think:plamo|>")

gc.FORMATS.update(
    {
        "qwen3_json": ParserFormat(
            gc.hermes,
            malformed='<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"\n</tool_call>',
        ),
        "olmo3": ParserFormat(
            olmo3,
            malformed='<function_calls>get_weather(city="Paris", unit=)</function_calls>',
        ),
        "plamo3": ParserFormat(
            plamo3,
            think=PLAMO_THINK,
            malformed=f'{PLAMO_REQS[0]}{PLAMO_REQ[0]}{PLAMO_NAME[0]}get_weather{PLAMO_NAME[1]}{PLAMO_ARGS[0]}{{"city": "Par',
        ),
    }
)

gc.REASONING_FORMATS.update(
    {
        "plamo3": PLAMO_THINK,
    }
)


def _fg_value(v: Any) -> str:
    return v if isinstance(v, str) else _js(v)


def functiongemma(calls: list[Call]) -> str:
    return "".join(
        f"<start_function_call>call:{n}{{"
        + ",".join(f"{k}:<escape>{_fg_value(v)}<escape>" for k, v in a.items())
        + "}<end_function_call>"
        for n, a in calls
    )


def _g4_value(v: Any) -> str:
    if isinstance(v, str):
        return f'<|"|>{v}<|"|>'
    if isinstance(v, dict):
        return "{" + ",".join(f"{k}:{_g4_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(_g4_value(x) for x in v) + "]"
    return _js(v)


def gemma4(calls: list[Call]) -> str:
    return "".join(
        f"<|tool_call>call:{n}{{" + ",".join(f"{k}:{_g4_value(v)}" for k, v in a.items()) + "}<tool_call|>"
        for n, a in calls
    )


INK_MSG, INK_END = "<|message_model|>", "<|end_message|>"
INK_THINK = (f"{INK_MSG}<|content_thinking|>", f"{INK_END}{INK_MSG}<|content_text|>")


def inkling(calls: list[Call]) -> str:
    return "".join(
        f'{INK_MSG}<|content_invoke_tool_json|>{{"name": "{n}", "args": {_js(a)}}}{INK_END}' for n, a in calls
    )


def _k3_type(v: Any) -> str:
    if isinstance(v, str):
        return "string"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, list):
        return "array"
    return "object"


def kimi_k3(calls: list[Call]) -> str:
    inner = "".join(
        f'<|open|>call tool="{n}" index="{i + 1}"<|sep|>'
        + "".join(
            f'<|open|>argument key="{k}" type="{_k3_type(v)}"<|sep|>{v if isinstance(v, str) else _js(v)}<|close|>argument<|sep|>'
            for k, v in a.items()
        )
        + "<|close|>call<|sep|>"
        for i, (n, a) in enumerate(calls)
    )
    return f"<|open|>tools<|sep|>{inner}<|close|>tools<|sep|>"


K3_THINK = ("<|open|>think<|sep|>", "<|close|>think<|sep|>")


def k2_horizon(calls: list[Call]) -> str:
    inner = "".join(
        f"<ifm|tool_call>{n}"
        + "".join(
            f"<ifm|arg_key>{k}</ifm|arg_key><ifm|arg_value>{v if isinstance(v, str) else _js(v)}</ifm|arg_value>"
            for k, v in a.items()
        )
        + "</ifm|tool_call>"
        for n, a in calls
    )
    return f"<ifm|tool_calls>{inner}</ifm|tool_calls>"


def _muse_value(v: Any) -> str:
    return v if isinstance(v, str) else _js(v)


def muse(calls: list[Call]) -> str:
    out = []
    for n, a in calls:
        params = "".join(f'<atem:parameter name="{k}">{_muse_value(v)}</atem:parameter>\n' for k, v in a.items())
        out.append(
            f"<|start|>assistant to={n}<|message|><atem:function_calls>\n"
            f'<atem:invoke name="{n}">\n{params}</atem:invoke>\n</atem:function_calls><|eom|>'
        )
    return "".join(out)


MUSE_THINK = (" to=self<|message|>", "<|eom|><|start|>assistant to=user<|message|>")

gc.FORMATS.update(
    {
        "functiongemma": ParserFormat(
            functiongemma,
            think=None,
            malformed="<start_function_call>call:get_weather{city:<escape>Paris",
        ),
        "gemma4": ParserFormat(
            gemma4,
            think=("<|channel>thought\n", "<channel|>"),
            malformed='<|tool_call>call:get_weather{city:<|"|>Paris',
        ),
        "inkling": ParserFormat(
            inkling,
            think=INK_THINK,
            malformed=f'{INK_MSG}<|content_invoke_tool_json|>{{"name": "get_weather", "args": {{"city": {INK_END}',
        ),
        "kimi_k3": ParserFormat(
            kimi_k3,
            think=K3_THINK,
            malformed='<|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|><|open|>argument key="city" type="string"<|sep|>Paris',
        ),
        "k2_horizon": ParserFormat(
            k2_horizon,
            think=("<ifm|think>", "</ifm|think>"),
            malformed="<ifm|tool_calls><ifm|tool_call>get_weather<ifm|arg_key>city</ifm|arg_key><ifm|arg_value>Paris</ifm|tool_call></ifm|tool_calls>",
        ),
        "muse": ParserFormat(
            muse,
            think=MUSE_THINK,
            malformed='<|start|>assistant to=get_weather<|message|><atem:function_calls>\n<atem:invoke name="get_weather">\n<atem:parameter name="city">Paris',
        ),
    }
)

gc.REASONING_FORMATS.update(
    {
        "gemma4": ("<|channel>thought\n", "<channel|>"),
        "inkling": INK_THINK,
        "kimi_k3": K3_THINK,
        "k2_horizon": ("<ifm|think>", "</ifm|think>"),
        "muse": MUSE_THINK,
    }
)
