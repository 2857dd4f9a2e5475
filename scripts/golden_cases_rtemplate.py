"""Response-template (`hf`, `beam`) case formats for the parser golden corpus.

Imported with `--cases-module golden_cases_rtemplate`. The models are tests/models/rtemplate-hf
(Qwen3 tokenizer, a hermes-style JSON `response_template`) and tests/models/rtemplate-beam
(Qwen3.5-style `<function=...>` calls read as `xml-inline`, regex delimiters, a chat template
that opens `<think>\\n` in the prompt). Besides the shared scenario kinds, every format adds
tool_choice required / named, `parallel_tool_calls` false, hidden reasoning, cut-off delimiters,
calls inside reasoning, repeated reasoning, empty / nameless / unknown calls and end markers
written as text.
"""

from __future__ import annotations

import json
from typing import Any

import golden_cases as gc
from golden_cases import NESTED, ONE, PARALLEL, Case, ParserFormat

_base_tool_cases = gc.tool_cases
_base_reasoning_cases = gc.reasoning_cases
NAMED = {"type": "function", "function": {"name": "get_weather"}}


def _js(v: Any) -> str:
    return json.dumps(v, ensure_ascii=False)


def _xml_value(v: Any) -> str:
    return v if isinstance(v, str) else _js(v)


def beam_calls(calls: list[gc.Call]) -> str:
    out = []
    for n, a in calls:
        params = "".join(f"<parameter={k}>\n{_xml_value(v)}\n</parameter>\n" for k, v in a.items())
        out.append(f"<tool_call>\n<function={n}>\n{params}</function>\n</tool_call>")
    return "\n".join(out)


HF_EXTRA = {
    "unknown_tool": '<tool_call>\n{"name": "lookup", "arguments": {"q": "x"}}\n</tool_call>',
    "string_arguments": '<tool_call>\n{"name": "search", "arguments": "{\\"query\\": \\"x\\"}"}\n</tool_call>',
    "missing_arguments": '<tool_call>\n{"name": "get_weather"}\n</tool_call>',
    "missing_name": '<tool_call>\n{"arguments": {"city": "Paris"}}\n</tool_call>',
    "empty_call": "<tool_call>\n</tool_call>",
    "call_then_text": gc.hermes(ONE) + "\nAnything else?",
    "bad_then_good": '<tool_call>\n{"name": \n</tool_call>\n' + gc.hermes(ONE),
    "im_end_as_text": "Done.<|im_end|>\nAfter the end.",
    "endoftext_then_call": "Done.<|endoftext|>" + gc.hermes(ONE),
    "cut_in_opener": "Sure.\n<tool_ca",
    "cut_in_closer": gc.hermes(ONE)[:-4],
    "unclosed_call": '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}',
    "think_in_content": "Answer first. <think>late thought</think> and more.",
    "two_thinks": "<think>first</think>middle<think>second</think>end",
    "call_in_reasoning": "<think>plan " + gc.hermes(ONE) + " still planning</think>Done.",
    "stray_close": "No opener here.</think>After.",
    "whitespace_only": "  \n ",
    "leading_ws_call": "\n\n" + gc.hermes(ONE),
}

BEAM_EXTRA = {
    "unknown_tool": "<tool_call>\n<function=lookup>\n<parameter=q>\nx\n</parameter>\n</function>\n</tool_call>",
    "typed_values": "<tool_call>\n<function=search>\n<parameter=query>\n42\n</parameter>\n<parameter=limit>\n3.0\n</parameter>\n<parameter=exact>\n1\n</parameter>\n<parameter=score>\nnan\n</parameter>\n<parameter=tags>\nnot json\n</parameter>\n</function>\n</tool_call>",
    "duplicate_param": "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=city>\nLyon\n</parameter>\n</function>\n</tool_call>",
    "no_params": "<tool_call>\n<function=get_weather>\n</function>\n</tool_call>",
    "undeclared_param": "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=note>\n7\n</parameter>\n</function>\n</tool_call>",
    "call_then_text": beam_calls(ONE) + "\nAnything else?",
    "cut_in_opener": "Sure.\n<tool_call>\n<functi",
    "cut_in_closer": beam_calls(ONE)[:-6],
    "unclosed_call": "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>",
    "im_end_as_text": "Done.<|im_end|>\nAfter the end.",
    "think_newlines": "<think>\nplan\n</think>\n\nAnswer.",
    "think_in_content": "Answer first. <think>late thought</think> and more.",
    "two_thinks": "<think>first</think>middle<think>second</think>end",
    "call_in_reasoning": "<think>plan " + beam_calls(ONE) + " still planning</think>Done.",
    "stray_close": "No opener here.\n</think>\nAfter.",
    "multiline_value": "<tool_call>\n<function=search>\n<parameter=query>\nline one\nline two\n</parameter>\n</function>\n</tool_call>",
}

def _gemma_value(v: Any) -> str:
    if isinstance(v, str):
        return f'<|"|>{v}<|"|>'
    if isinstance(v, dict):
        return "{" + ",".join(f"{k}:{_gemma_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(_gemma_value(x) for x in v) + "]"
    return _js(v)


def gemma_calls(calls: list[gc.Call]) -> str:
    """Gemma-4-style calls: `<|tool_call>call:NAME{key:value,...}<tool_call|>`."""
    return "".join(
        f"<|tool_call>call:{n}{{" + ",".join(f"{k}:{_gemma_value(v)}" for k, v in a.items()) + "}<tool_call|>"
        for n, a in calls
    )


GEMMA_EXTRA = {
    "colon_in_string": '<|tool_call>call:search{query:<|"|>a: b, c<|"|>,limit:2}<tool_call|>',
    "bad_key": '<|tool_call>call:search{my-key:<|"|>x<|"|>}<tool_call|>',
    "unclosed_delim": '<|tool_call>call:search{query:<|"|>open}<tool_call|>',
    "plain_json_args": '<|tool_call>call:get_weather{"city": "Paris", "days": "2"}<tool_call|>',
    "name_no_args": "<|tool_call>call:get_weather<tool_call|>",
    "turn_end_then_text": "Answer.<turn|>More text.",
    "eos_text": "Answer.<eos>after",
    "tool_response_marker": "Answer.<|tool_response>next",
    "thought_cut": "<|channel>thoug",
    "call_then_text": gemma_calls(ONE) + "Anything else?",
    "text_call_text_call": "A " + gemma_calls(ONE) + " B " + gemma_calls(PARALLEL[1:]),
}

gc.FORMATS.update(
    {
        "rtemplate-hf": ParserFormat(
            gc.hermes,
            malformed='<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"\n</tool_call>',
            extra_outputs=HF_EXTRA,
        ),
        "rtemplate-beam": ParserFormat(
            beam_calls,
            malformed="<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</function>",
            extra_outputs=BEAM_EXTRA,
        ),
        "rtemplate-gemma": ParserFormat(
            gemma_calls,
            think=("<|channel>thought\n", "<channel|>"),
            malformed='<|tool_call>call:get_weather{city:<|"|>Paris<tool_call|>',
            extra_outputs=GEMMA_EXTRA,
        ),
        # Beam with the prompt's `<think>\n` left open: the model starts inside reasoning.
        "rtemplate-beam-open": ParserFormat(
            beam_calls,
            think=("", "\n</think>\n\n"),
            malformed="Plan.\n</think>\n\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</function>",
            extra_outputs={
                "reasoning_then_parallel": "Two calls.\n</think>\n\n" + beam_calls(PARALLEL),
                "reasoning_then_nested": "Nested.\n</think>\n\n" + beam_calls(NESTED),
                "reasoning_text_call": "Plan.</think>Let me check.\n" + beam_calls(ONE) + "\nDone.",
                "reasoning_cut_in_closer": "Plan.\n</thi",
                "reasoning_reopen": "Plan.</think>Answer.<think>more</think>Final.",
                "immediate_close": "</think>Answer only.",
            },
        ),
    }
)
gc.REASONING_FORMATS.update(
    {
        "rtemplate-hf": ("<think>", "</think>"),
        "rtemplate-beam": ("", "\n</think>\n\n"),
    }
)


def _tool_format_name(fmt: ParserFormat) -> str | None:
    for name in ("rtemplate-hf", "rtemplate-beam", "rtemplate-beam-open", "rtemplate-gemma"):
        if gc.FORMATS.get(name) is fmt:
            return name
    return None


def tool_cases(fmt: ParserFormat) -> list[Case]:
    cases = _base_tool_cases(fmt)
    if _tool_format_name(fmt) is None:
        return cases
    assert fmt.calls is not None
    f = fmt.calls
    start, end = fmt.think or ("", "")
    cases += [Case(f"extra_{key}", text) for key, text in fmt.extra_outputs.items()]
    cases += [
        Case("required_one_call", f(ONE), request={"tool_choice": "required"}),
        Case("required_plain", "No call here.", request={"tool_choice": "required"}),
        Case("named_one_call", f(ONE), request={"tool_choice": NAMED}),
        Case("named_plain", "No call here.", request={"tool_choice": NAMED}),
        Case("parallel_false", f(PARALLEL), request={"parallel_tool_calls": False}),
        Case("include_reasoning_false", f"{start}Hidden.{end}" + f(ONE), request={"include_reasoning": False}),
        Case("include_reasoning_false_plain", f"{start}Hidden.{end}Visible.", request={"include_reasoning": False}),
        Case("auto_explicit", f(PARALLEL), request={"tool_choice": "auto"}),
        Case("thinking_disabled", f"{start}Tagged.{end}Rest.", request={"chat_template_kwargs": {"enable_thinking": False}}),
        Case("reasoning_cut_off", f"{start}Still thinking", finish_reason="length"),
        Case("reasoning_parallel", f"{start}Two calls.{end}" + f(PARALLEL)),
        Case("reasoning_unicode_nested", f"{start}東京?{end}" + f(NESTED)),
    ]
    return cases


def reasoning_cases(start: str, end: str) -> list[Case]:
    cases = _base_reasoning_cases(start, end)
    if (start, end) not in gc.REASONING_FORMATS.values() or (start, end) not in (
        gc.REASONING_FORMATS["rtemplate-hf"],
        gc.REASONING_FORMATS["rtemplate-beam"],
    ):
        return cases
    calls = gc.hermes if start else beam_calls
    no_tools = {"with_tools": False}
    cases += [
        Case("call_after_reasoning", f"{start}Plan.{end}" + calls(ONE)),
        Case("call_plain", calls(ONE)),
        Case("call_tool_choice_none", f"{start}Plan.{end}" + calls(ONE), request={"tool_choice": "none"}),
        Case("double_end", f"{start}A{end}B{end}C", **no_tools),
        Case("cut_in_end", f"{start}Almost{end[:-3]}", finish_reason="length", **no_tools),
        Case("newlines_after_end", f"{start}Think.{end}\n\nAnswer.\n", **no_tools),
        Case("reasoning_cut_off", f"{start}Still", finish_reason="length", **no_tools),
        Case("empty_reasoning", f"{start}{end}Answer.", **no_tools),
    ]
    return cases


gc.tool_cases = tool_cases
gc.reasoning_cases = reasoning_cases


# ---- render requests (scripts/record_rtemplate_render.py) ------------------------------------
_MESSAGES = [{"role": "user", "content": "What's the weather in Paris?"}]
_STRICT_TOOLS = [{**gc.TOOLS[0], "function": {**gc.TOOLS[0]["function"], "strict": True}}, gc.TOOLS[1]]

RENDER_CASES: dict[str, dict[str, dict[str, Any]]] = {
    "rtemplate-hf": {
        "no_tools": {"messages": _MESSAGES},
        "tools_default": {"messages": _MESSAGES, "tools": gc.TOOLS},
        "tools_auto": {"messages": _MESSAGES, "tools": gc.TOOLS, "tool_choice": "auto"},
        "tools_none": {"messages": _MESSAGES, "tools": gc.TOOLS, "tool_choice": "none"},
        "required": {"messages": _MESSAGES, "tools": gc.TOOLS, "tool_choice": "required"},
        "named": {"messages": _MESSAGES, "tools": gc.TOOLS, "tool_choice": NAMED},
        "parallel_false": {"messages": _MESSAGES, "tools": gc.TOOLS, "parallel_tool_calls": False},
        "strict_tool": {"messages": _MESSAGES, "tools": _STRICT_TOOLS},
        "strict_tool_none": {"messages": _MESSAGES, "tools": _STRICT_TOOLS, "tool_choice": "none"},
        "thinking_off": {"messages": _MESSAGES, "chat_template_kwargs": {"enable_thinking": False}},
        "skip_special_true": {"messages": _MESSAGES, "skip_special_tokens": True,
                              "spaces_between_special_tokens": True},
        "json_object": {"messages": _MESSAGES, "response_format": {"type": "json_object"}},
        "include_reasoning_false": {"messages": _MESSAGES, "include_reasoning": False},
    },
}
RENDER_CASES["rtemplate-beam"] = RENDER_CASES["rtemplate-hf"]
