"""Case specs for the parser golden corpus recorded from vLLM 0.33.0.

Each parser config gets the same scenario kinds (plain text, reasoning, one call, parallel
calls, text around calls, malformed calls, unicode and nested arguments, cut-off output,
tool_choice none), written in that model's native output format. `record_vllm_golden.py`
turns them into derender requests and records vLLM's answers.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Call = tuple[str, dict[str, Any]]

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather for a city.",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                    "days": {"type": "integer"},
                },
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "search",
            "description": "Search the web.",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string"},
                    "limit": {"type": "integer"},
                    "exact": {"type": "boolean"},
                    "score": {"type": "number"},
                    "filters": {"type": "object"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["query"],
            },
        },
    },
]

ONE: list[Call] = [("get_weather", {"city": "Paris", "unit": "celsius"})]
PARALLEL: list[Call] = [
    ("get_weather", {"city": "Tokyo", "days": 3}),
    ("search", {"query": "best ramen", "limit": 5}),
]
NESTED: list[Call] = [
    (
        "search",
        {
            "query": "東京 café ☀️ \"quoted\"",
            "exact": True,
            "score": 0.75,
            "filters": {"lang": ["ja", "en"], "range": {"from": 1, "to": 2.5}, "none": None},
            "tags": ["naïve", "日本"],
        },
    )
]


def _json(args: dict[str, Any]) -> str:
    return json.dumps(args, ensure_ascii=False)


def _py_value(v: Any) -> str:
    if isinstance(v, str):
        return repr(v)
    if v is None:
        return "None"
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k!r}: {_py_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_py_value(x) for x in v) + "]"
    return repr(v)


def _xml_value(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)


def hermes(calls: list[Call]) -> str:
    return "\n".join(
        f'<tool_call>\n{{"name": "{n}", "arguments": {_json(a)}}}\n</tool_call>' for n, a in calls
    )


def qwen3_xml(calls: list[Call]) -> str:
    out = []
    for n, a in calls:
        params = "".join(f"<parameter={k}>\n{_xml_value(v)}\n</parameter>\n" for k, v in a.items())
        out.append(f"<tool_call>\n<function={n}>\n{params}</function>\n</tool_call>")
    return "\n".join(out)


def llama_json(calls: list[Call]) -> str:
    return "; ".join(f'{{"name": "{n}", "parameters": {_json(a)}}}' for n, a in calls)


def pythonic(calls: list[Call]) -> str:
    inner = ", ".join(f"{n}(" + ", ".join(f"{k}={_py_value(v)}" for k, v in a.items()) + ")" for n, a in calls)
    return f"[{inner}]"


def llama4_pythonic(calls: list[Call]) -> str:
    return f"<|python_start|>{pythonic(calls)}<|python_end|>"


def mistral(calls: list[Call]) -> str:
    body = ", ".join(f'{{"name": "{n}", "arguments": {_json(a)}}}' for n, a in calls)
    return f"[TOOL_CALLS][{body}]"


def deepseek_v3(calls: list[Call]) -> str:
    inner = "".join(
        f"<｜tool▁call▁begin｜>function<｜tool▁sep｜>{n}\n```json\n{_json(a)}\n```<｜tool▁call▁end｜>"
        for n, a in calls
    )
    return f"<｜tool▁calls▁begin｜>{inner}<｜tool▁calls▁end｜>"


def deepseek_v31(calls: list[Call]) -> str:
    inner = "".join(
        f"<｜tool▁call▁begin｜>{n}<｜tool▁sep｜>{_json(a)}<｜tool▁call▁end｜>" for n, a in calls
    )
    return f"<｜tool▁calls▁begin｜>{inner}<｜tool▁calls▁end｜>"


def kimi_k2(calls: list[Call]) -> str:
    inner = "".join(
        f"<|tool_call_begin|>functions.{n}:{i}<|tool_call_argument_begin|>{_json(a)}<|tool_call_end|>"
        for i, (n, a) in enumerate(calls)
    )
    return f"<|tool_calls_section_begin|>{inner}<|tool_calls_section_end|>"


def glm45(calls: list[Call]) -> str:
    out = []
    for n, a in calls:
        params = "".join(f"<arg_key>{k}</arg_key>\n<arg_value>{_xml_value(v)}</arg_value>\n" for k, v in a.items())
        out.append(f"<tool_call>{n}\n{params}</tool_call>")
    return "\n".join(out)


def glm47(calls: list[Call]) -> str:
    out = []
    for n, a in calls:
        params = "".join(f"<arg_key>{k}</arg_key><arg_value>{_xml_value(v)}</arg_value>" for k, v in a.items())
        out.append(f"<tool_call>{n}{params}</tool_call>")
    return "".join(out)


def minimax_m2(calls: list[Call]) -> str:
    invokes = "".join(
        f'<invoke name="{n}">\n'
        + "".join(f'<parameter name="{k}">{_xml_value(v)}</parameter>\n' for k, v in a.items())
        + "</invoke>\n"
        for n, a in calls
    )
    return f"<minimax:tool_call>\n{invokes}</minimax:tool_call>"


def json_list(prefix: str, suffix: str = "") -> Callable[[list[Call]], str]:
    def fmt(calls: list[Call]) -> str:
        body = ", ".join(f'{{"name": "{n}", "arguments": {_json(a)}}}' for n, a in calls)
        return f"{prefix}[{body}]{suffix}"

    return fmt


def granite4(calls: list[Call]) -> str:
    return "\n".join(
        f'<tool_call>{{"name": "{n}", "arguments": {_json(a)}}}</tool_call>' for n, a in calls
    )


def internlm(calls: list[Call]) -> str:
    n, a = calls[0]
    return f'<|action_start|><|plugin|>\n{{"name": "{n}", "parameters": {_json(a)}}}<|action_end|>'


def lfm2(calls: list[Call]) -> str:
    inner = ", ".join(f"{n}(" + ", ".join(f"{k}={_py_value(v)}" for k, v in a.items()) + ")" for n, a in calls)
    return f"<|tool_call_start|>[{inner}]<|tool_call_end|>"


def seed_oss(calls: list[Call]) -> str:
    out = []
    for n, a in calls:
        params = "".join(f"<parameter={k}>{_xml_value(v)}</parameter>\n" for k, v in a.items())
        out.append(f"<seed:tool_call>\n<function={n}>\n{params}</function>\n</seed:tool_call>")
    return "\n".join(out)


def step3(calls: list[Call]) -> str:
    inner = "".join(
        f'<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="{n}">'
        + "".join(f'<steptml:parameter name="{k}">{_xml_value(v)}</steptml:parameter>' for k, v in a.items())
        + "</steptml:invoke><｜tool_call_end｜>"
        for n, a in calls
    )
    return f"<｜tool_calls_begin｜>{inner}<｜tool_calls_end｜>"


def ernie45(calls: list[Call]) -> str:
    return "\n".join(
        f'<tool_call>\n{{"name": "{n}", "arguments": {_json(a)}}}\n</tool_call>' for n, a in calls
    )


@dataclass
class ParserFormat:
    """How one config's model writes tool calls and reasoning."""

    calls: Callable[[list[Call]], str] | None
    think: tuple[str, str] | None = ("<think>", "</think>")
    # Text that makes a call malformed for this format.
    malformed: str | None = None
    extra_outputs: dict[str, str] = field(default_factory=dict)


FORMATS: dict[str, ParserFormat] = {
    "hermes": ParserFormat(hermes, malformed='<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"\n</tool_call>'),
    "qwen3_xml": ParserFormat(qwen3_xml, malformed="<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</function>"),
    "qwen3_coder": ParserFormat(qwen3_xml, malformed="<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</function>"),
    "llama3_json": ParserFormat(llama_json, think=None, malformed='{"name": "get_weather", "parameters": {"city": "Paris"'),
    "llama4_json": ParserFormat(llama_json, think=None, malformed='{"name": "get_weather", "parameters": {"city": "Paris"'),
    "pythonic": ParserFormat(pythonic, think=None, malformed="[get_weather(city='Paris', unit=)]"),
    "llama4_pythonic": ParserFormat(llama4_pythonic, think=None, malformed="<|python_start|>[get_weather(city='Paris'<|python_end|>"),
    "mistral": ParserFormat(mistral, think=None, malformed='[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}'),
    "deepseek_v3": ParserFormat(deepseek_v3, malformed="<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"),
    "deepseek_v31": ParserFormat(deepseek_v31, malformed="<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": <｜tool▁call▁end｜><｜tool▁calls▁end｜>"),
    "kimi_k2": ParserFormat(kimi_k2, malformed="<|tool_calls_section_begin|><|tool_call_begin|>get_weather<|tool_call_argument_begin|>{\"city\": \"Paris\"<|tool_calls_section_end|>"),
    "glm45": ParserFormat(glm45, malformed="<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris"),
    "glm47": ParserFormat(glm47, malformed="<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris"),
    "minimax_m2": ParserFormat(minimax_m2, malformed='<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris'),
    "granite": ParserFormat(json_list("<|tool_call|>"), think=("Here is my thought process:", "Here is my response:"), malformed='<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}'),
    "granite4": ParserFormat(granite4, think=None, malformed='<tool_call>{"name": "get_weather", "arguments": {"city": </tool_call>'),
    "phi4_mini_json": ParserFormat(json_list("functools"), think=None, malformed='functools[{"name": "get_weather", "arguments": {"city": "Paris"}'),
    "xlam": ParserFormat(json_list(""), think=None, malformed='[{"name": "get_weather", "arguments": {"city": "Paris"}'),
    "internlm": ParserFormat(internlm, think=None, malformed='<|action_start|><|plugin|>\n{"name": "get_weather", "parameters": {"city": <|action_end|>'),
    "jamba": ParserFormat(json_list("<tool_calls>", "</tool_calls>"), think=None, malformed='<tool_calls>[{"name": "get_weather", "arguments": {"city": </tool_calls>'),
    "lfm2": ParserFormat(lfm2, think=None, malformed="<|tool_call_start|>[get_weather(city='Paris'<|tool_call_end|>"),
    "seed_oss": ParserFormat(seed_oss, think=("<seed:think>", "</seed:think>"), malformed="<seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris"),
    "step3": ParserFormat(step3, malformed='<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_weather"><steptml:parameter name="city">Paris'),
    "hunyuan_a13b": ParserFormat(json_list("<tool_calls>", "</tool_calls>"), malformed='<tool_calls>[{"name": "get_weather", "arguments": {"city": </tool_calls>'),
    "ernie45": ParserFormat(ernie45, malformed='<tool_call>\n{"name": "get_weather", "arguments": {"city": \n</tool_call>'),
}

# Reasoning-only configs: (start, end) markers as the model writes them.
REASONING_FORMATS: dict[str, tuple[str, str]] = {
    "deepseek_r1": ("<think>", "</think>"),
    "deepseek_v3": ("<think>", "</think>"),
    "qwen3": ("<think>", "</think>"),
    "granite": ("Here is my thought process:", "Here is my response:"),
    "glm45": ("<think>", "</think>"),
    "kimi_k2": ("<think>", "</think>"),
    "minimax_m2": ("<think>", "</think>"),
    "minimax_m2_append_think": ("<think>", "</think>"),
    "mistral": ("[THINK]", "[/THINK]"),
    "seed_oss": ("<seed:think>", "</seed:think>"),
    "hunyuan_a13b": ("<think>\n", "\n</think>\n<answer>\n"),
    "ernie45": ("<think>", "</think>\n<response>\n"),
    "step3": ("<think>", "</think>"),
    "olmo3": ("<think>", "</think>"),
}


@dataclass
class Case:
    scenario: str
    output: str
    finish_reason: str = "stop"
    request: dict[str, Any] = field(default_factory=dict)
    with_tools: bool = True


def tool_cases(fmt: ParserFormat) -> list[Case]:
    assert fmt.calls is not None
    f = fmt.calls
    cases = [
        Case("plain", "The capital of France is Paris."),
        Case("one_call", f(ONE)),
        Case("parallel_calls", f(PARALLEL)),
        Case("text_before_call", "Let me check that for you.\n" + f(ONE)),
        Case("text_around_call", "Sure.\n" + f(ONE) + "\nDone."),
        Case("unicode_nested", f(NESTED)),
        Case("cut_off", f(ONE)[: max(8, len(f(ONE)) * 2 // 3)], finish_reason="length"),
        Case("tool_choice_none", f(ONE), request={"tool_choice": "none"}),
        Case("no_tools_in_request", f(ONE), with_tools=False),
    ]
    if fmt.malformed:
        cases.append(Case("malformed_call", fmt.malformed))
    if fmt.think:
        start, end = fmt.think
        cases += [
            Case("reasoning_only", f"{start}I should think about the weather.{end}"),
            Case("reasoning_and_content", f"{start}Short thought.{end}The answer is 42."),
            Case("reasoning_and_call", f"{start}Need weather data.{end}" + f(ONE)),
        ]
    return cases


def reasoning_cases(start: str, end: str) -> list[Case]:
    return [
        Case("plain", "The capital of France is Paris.", with_tools=False),
        Case("reasoning_only", f"{start}Let me think step by step.{end}", with_tools=False),
        Case("reasoning_and_content", f"{start}Two plus two.{end}The answer is 4.", with_tools=False),
        Case("no_start_marker", f"Thinking without an opener.{end}Final answer.", with_tools=False),
        Case("unterminated", f"{start}Still thinking about it", finish_reason="length", with_tools=False),
        Case("unicode", f"{start}Caf\u00e9 \u2615 \u6771\u4eac{end}\u3053\u3093\u306b\u3061\u306f \U0001f600", with_tools=False),
        Case("include_reasoning_false", f"{start}Hidden thought.{end}Visible.", request={"include_reasoning": False}, with_tools=False),
        Case("thinking_disabled", "Direct answer.", request={"chat_template_kwargs": {"enable_thinking": False}}, with_tools=False),
    ]
