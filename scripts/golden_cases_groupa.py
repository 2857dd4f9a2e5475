"""Case formats for the group-A parser golden corpus (tests/golden/vllm-groupa.jsonl).

Adds the output formats of the DeepSeek DSML, MiMo, LongCat, MiniMax-M3, dots and MiniCPM5
families to `golden_cases.FORMATS` / `REASONING_FORMATS`.
"""

from __future__ import annotations

import json

import golden_cases as gc
from golden_cases import Call, ParserFormat


def _val(v: object) -> str:
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)


def dsml(wrapper: str, tag: str = "｜DSML｜") -> gc.Callable[[list[Call]], str]:
    def fmt(calls: list[Call]) -> str:
        invokes = "".join(
            f'<{tag}invoke name="{n}">\n'
            + "".join(
                f'<{tag}parameter name="{k}" string="{"true" if isinstance(v, str) else "false"}">'
                f"{_val(v)}</{tag}parameter>\n"
                for k, v in a.items()
            )
            + f"</{tag}invoke>\n"
            for n, a in calls
        )
        return f"<{tag}{wrapper}>\n{invokes}</{tag}{wrapper}>"

    return fmt


def mimo(calls: list[Call]) -> str:
    out = []
    for n, a in calls:
        params = "".join(f"<parameter={k}>{_val(v)}</parameter>\n" for k, v in a.items())
        out.append(f"<tool_call>\n<function={n}>\n{params}</function>\n</tool_call>")
    return "\n".join(out)


def longcat(calls: list[Call]) -> str:
    return "\n".join(
        f'<longcat_tool_call>\n{{"name": "{n}", "arguments": {json.dumps(a, ensure_ascii=False)}}}\n</longcat_tool_call>'
        for n, a in calls
    )


NS = "]<]minimax[>["


def _m3_element(k: str, v: object) -> str:
    if isinstance(v, dict):
        inner = "".join(_m3_element(ck, cv) for ck, cv in v.items())
        return f"{NS}<{k}>{inner}{NS}</{k}>"
    if isinstance(v, list):
        return "".join(_m3_element(k, item) for item in v)
    return f"{NS}<{k}>{_val(v) if v is not None else 'null'}{NS}</{k}>"


def minimax_m3(calls: list[Call]) -> str:
    invokes = "".join(
        f'{NS}<invoke name="{n}">\n' + "".join(_m3_element(k, v) + "\n" for k, v in a.items()) + f"{NS}</invoke>\n"
        for n, a in calls
    )
    return f"{NS}<tool_call>\n{invokes}{NS}</tool_call>"


def dots(calls: list[Call]) -> str:
    invokes = "".join(
        f'<invoke name="{n}">\n'
        + "".join(f'<parameter name="{k}">{_val(v)}</parameter>\n' for k, v in a.items())
        + "</invoke>\n"
        for n, a in calls
    )
    return f"<dots_function_call>\n{invokes}</dots_function_call>"


def minicpm5(calls: list[Call]) -> str:
    return "\n".join(
        f'<function name="{n}">\n'
        + "".join(f'<param name="{k}">{_val(v)}</param>\n' for k, v in a.items())
        + "</function>"
        for n, a in calls
    )


_DS = "｜DSML｜"
gc.FORMATS.update(
    {
        "deepseek_v32": ParserFormat(
            dsml("function_calls"), think=None,
            malformed=f'<{_DS}function_calls>\n<{_DS}invoke name="get_weather">\n<{_DS}parameter name="city" string="true">Paris',
        ),
        "deepseek_v4": ParserFormat(
            dsml("tool_calls"),
            malformed=f'<{_DS}tool_calls>\n<{_DS}invoke name="get_weather">\n<{_DS}parameter name="city" string="true">Paris',
        ),
        "deepseek_v41": ParserFormat(
            dsml("calls", "｜DSML｜ "),
            malformed=f'<{_DS} calls>\n<{_DS} invoke name="get_weather">\n<{_DS} parameter name="city" string="true">Paris',
        ),
        "mimo": ParserFormat(mimo, malformed="<tool_call>\n<function=get_weather>\n<parameter=city>Paris\n</function>"),
        "longcat": ParserFormat(longcat, think=None, malformed='<longcat_tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"\n</longcat_tool_call>'),
        "minimax_m3": ParserFormat(
            minimax_m3, think=("<mm:think>", "</mm:think>"),
            malformed=f'{NS}<tool_call>\n{NS}<invoke name="get_weather">\n{NS}<city>Paris',
        ),
        "dots": ParserFormat(dots, think=None, malformed='<dots_function_call>\n<invoke name="get_weather">\n<parameter name="city">Paris'),
        "minicpm5": ParserFormat(minicpm5, think=None, malformed='<function name="get_weather">\n<param name="city">Paris'),
    }
)

gc.REASONING_FORMATS.update(
    {
        "minicpmv": ("<think>", "</think>"),
        "mimo": ("<think>", "</think>"),
        "minimax_m3": ("<mm:think>", "</mm:think>"),
        "deepseek_v4": ("<think>", "</think>"),
    }
)


# ---- render cases (scripts/record_groupa_render.py) --------------------------------------
_CALL = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city": "Paris", "days": 2}'},
}
_HISTORY = [
    {"role": "system", "content": "You are helpful."},
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": "", "reasoning": "Need the tool.", "tool_calls": [_CALL]},
    {"role": "tool", "tool_call_id": "call_1", "content": "Sunny, 21C"},
]
RENDER_CASES: dict[str, dict[str, dict[str, object]]] = {
    "deepseek": {
        "simple": {"messages": [{"role": "user", "content": "Hi"}]},
        "system": {"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]},
        "tools": {"messages": [{"role": "user", "content": "Weather in Paris?"}], "tools": gc.TOOLS},
        "thinking": {
            "messages": [{"role": "user", "content": "Hi"}],
            "chat_template_kwargs": {"thinking": True},
        },
        "enable_thinking_tools": {
            "messages": [{"role": "user", "content": "Weather?"}],
            "tools": gc.TOOLS,
            "chat_template_kwargs": {"enable_thinking": True},
        },
        "tool_results": {"messages": _HISTORY, "tools": gc.TOOLS},
        "tool_results_thinking": {
            "messages": _HISTORY, "tools": gc.TOOLS, "chat_template_kwargs": {"thinking": True},
        },
        "multi_turn": {
            "messages": [
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": "Hello! 👋", "reasoning": "greet"},
                {"role": "user", "content": "日本語で?"},
            ],
        },
        "multi_turn_thinking": {
            "messages": [
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": "Hello!", "reasoning": "greet"},
                {"role": "user", "content": "Again"},
            ],
            "chat_template_kwargs": {"thinking": True},
        },
        "parallel_tool_results": {
            "messages": [
                {"role": "user", "content": "Two cities"},
                {"role": "assistant", "content": None, "tool_calls": [
                    _CALL,
                    {"id": "call_2", "type": "function", "function": {"name": "search", "arguments": {"query": "x", "tags": ["a"]}}},
                ]},
                {"role": "tool", "tool_call_id": "call_1", "content": "Sunny"},
                {"role": "tool", "tool_call_id": "call_2", "content": "Found"},
            ],
            "tools": gc.TOOLS,
        },
        "developer": {"messages": [{"role": "developer", "content": "Rules."}, {"role": "user", "content": "Hi"}]},
        "assistant_last": {
            "messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hel"}],
            "add_generation_prompt": False, "continue_final_message": True,
        },
        "response_format": {
            "messages": [{"role": "user", "content": "Give JSON"}],
            "response_format": {"type": "json_object"},
        },
    }
}

RENDER_CASES["deepseek_v4"] = {
    **RENDER_CASES["deepseek"],
    "no_thinking": {"messages": [{"role": "user", "content": "Hi"}], "chat_template_kwargs": {"thinking": False}},
    "effort_none": {"messages": [{"role": "user", "content": "Hi"}], "reasoning_effort": "none"},
    "effort_low": {"messages": [{"role": "user", "content": "Hi"}], "reasoning_effort": "low"},
    "effort_max": {"messages": [{"role": "user", "content": "Hi"}], "chat_template_kwargs": {"reasoning_effort": "max"}},
    "tools_with_system": {
        "messages": [{"role": "system", "content": "Sys."}, {"role": "user", "content": "W?"}],
        "tools": gc.TOOLS,
    },
    "multi_part_user": {
        "messages": [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}],
    },
    "tool_results_no_tools": {"messages": _HISTORY, "chat_template_kwargs": {"thinking": True}},
}
