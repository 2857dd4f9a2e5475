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
