"""Group C parsers (qwen3_json, olmo3, plamo3, functiongemma, k2_horizon, muse*, kimi_k3,
gemma4, inkling): one-shot extraction and token-by-token streaming agree on the calls.

The recorded vLLM answers are replayed by tests/parity/test_inprocess_parity.py
(`tests/golden/vllm-groupc.jsonl`); these are fast direct checks of the parser classes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tokenfront.parsers.base import ParseContext
from tokenfront.parsers.registry import get_reasoning_parser, get_tool_parser

MODEL = Path(__file__).resolve().parents[1] / "models" / "groupc-markers"
pytestmark = pytest.mark.skipif(
    not (MODEL / "tokenizer.json").exists(), reason="shared qwen3 tokenizer not found"
)

TOOLS: list[dict[str, Any]] = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {
        "city": {"type": "string"}, "days": {"type": "integer"}}}}},
]  # fmt: skip
CALL = {"city": "Paris", "days": 3}
OUTPUTS = {
    "qwen3_json": '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}\n</tool_call>',
    "olmo3": '<function_calls>get_weather(city="Paris", days=3)</function_calls>',
    "plamo3": "<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|>"
    "<|plamo:begin_tool_name:plamo|>get_weather<|plamo:end_tool_name:plamo|>"
    '<|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{"city": "Paris", "days": 3}'
    "<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|><|plamo:end_tool_requests:plamo|>",
    "functiongemma": "<start_function_call>call:get_weather{city:<escape>Paris<escape>,days:<escape>3<escape>}"
    "<end_function_call>",
    "k2_horizon": "<ifm|tool_calls><ifm|tool_call>get_weather<ifm|arg_key>city</ifm|arg_key><ifm|arg_value>Paris"
    "</ifm|arg_value><ifm|arg_key>days</ifm|arg_key><ifm|arg_value>3</ifm|arg_value></ifm|tool_call></ifm|tool_calls>",
    "muse": '<|start|>assistant to=get_weather<|message|><atem:function_calls>\n<atem:invoke name="get_weather">\n'
    '<atem:parameter name="city">Paris</atem:parameter>\n<atem:parameter name="days">3</atem:parameter>\n'
    "</atem:invoke>\n</atem:function_calls><|eom|>",
    "kimi_k3": '<|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|>'
    '<|open|>argument key="city" type="string"<|sep|>Paris<|close|>argument<|sep|>'
    '<|open|>argument key="days" type="integer"<|sep|>3<|close|>argument<|sep|><|close|>call<|sep|>'
    "<|close|>tools<|sep|>",
    "gemma4": '<|tool_call>call:get_weather{city:<|"|>Paris<|"|>,days:3}<tool_call|>',
    "inkling": '<|message_model|><|content_invoke_tool_json|>{"name": "get_weather", "args": '
    '{"city": "Paris", "days": 3}}<|end_message|>',
}
OUTPUTS["musespark1x"] = OUTPUTS["muse_glimmer"] = OUTPUTS["muse"]


def tokenizer() -> Any:
    from hf_tokenizers import hf_tokenizer

    return hf_tokenizer(MODEL)


def ctx(**kw: Any) -> ParseContext:
    kw.setdefault("tools", TOOLS)
    kw.setdefault("tool_choice", "auto")
    return ParseContext(enable_auto_tools=True, **kw)


def streamed_calls(name: str, text: str) -> list[tuple[str, dict[str, Any]]]:
    tok = tokenizer()
    parser = get_tool_parser(name)(tok, ctx())
    state = parser.initial_state()
    names: dict[int, str] = {}
    args: dict[int, str] = {}
    last_index = -1
    deltas = []
    for tid in tok.encode(text, add_special_tokens=False):
        deltas.append(parser.stream(state, tok.decode([tid]), [tid]))
    deltas.append(parser.finish(state))
    for delta in deltas:
        for call in delta.tool_calls if delta else ():
            last_index = call.index
            if call.name:
                names[call.index] = call.name
            args[call.index] = args.get(call.index, "") + (call.arguments or "")
    if last_index >= 0:
        args[last_index] += parser.remaining_args(state)
    return [(names[i], json.loads(args[i])) for i in sorted(names)]


@pytest.mark.parametrize("name", sorted(OUTPUTS))
def test_one_call_oneshot_and_stream(name: str) -> None:
    parser = get_tool_parser(name)(tokenizer(), ctx())
    info = parser.extract_tool_calls(OUTPUTS[name])
    assert info.tools_called
    assert [(c.name, json.loads(c.arguments)) for c in info.tool_calls] == [("get_weather", CALL)]
    if name == "functiongemma":
        # vLLM streams FunctionGemma arguments as length diffs of re-serialised JSON, which
        # only concatenate to valid JSON for a single argument.
        assert streamed_calls(name, OUTPUTS[name].replace(",days:<escape>3<escape>", "")) == [
            ("get_weather", {"city": "Paris"})
        ]
        return
    assert streamed_calls(name, OUTPUTS[name]) == [("get_weather", CALL)]


@pytest.mark.parametrize("name", sorted(OUTPUTS))
def test_plain_text_has_no_calls(name: str) -> None:
    info = get_tool_parser(name)(tokenizer(), ctx()).extract_tool_calls("The capital of France is Paris.")
    assert not info.tools_called


@pytest.mark.parametrize(
    ("name", "text", "kwargs", "expected"),
    [
        ("plamo3", "<|plamo:begin_think:plamo|>hm<|plamo:end_think:plamo|>ok", {}, ("hm", "ok")),
        ("plamo3", "plain", {"enable_thinking": False}, (None, "plain")),
        ("k2_horizon", "<ifm|think>hm</ifm|think>ok", {}, ("hm", "ok")),
        ("k2_horizon", "<ifm|think_fast>hm</ifm|think_fast>ok", {"reasoning_effort": "medium"}, ("hm", "ok")),
        ("kimi_k3", "<|open|>think<|sep|>hm<|close|>think<|sep|><|open|>response<|sep|>ok<|close|>response<|sep|>",
         {}, ("hm", "ok")),
        ("gemma4", "<|channel>thought\nhm<channel|>ok", {"enable_thinking": True}, ("hm", "ok")),
        ("muse", " to=self<|message|>hm<|eom|><|start|>assistant to=user<|message|>ok<|eot|>", {}, ("hm", "ok")),
        ("inkling", "<|message_model|><|content_thinking|>hm<|end_message|><|message_model|><|content_text|>ok",
         {}, ("hm", "ok")),
        ("inkling", "plain", {}, (None, "plain")),
        ("muse_glimmer", " to=self<|message|>hm<|eom|><|start|>assistant to=user<|message|>ok<|eot|>", {},
         ("hm", "ok")),
    ],
)  # fmt: skip
def test_reasoning_split(name: str, text: str, kwargs: dict[str, Any], expected: tuple[Any, Any]) -> None:
    parser = get_reasoning_parser(name)(tokenizer(), ParseContext(chat_template_kwargs=kwargs))
    assert parser.extract_reasoning(text) == expected


def test_k2_horizon_rejects_unknown_effort() -> None:
    with pytest.raises(ValueError, match="reasoning_effort"):
        get_reasoning_parser("k2_horizon")(tokenizer(), ParseContext(chat_template_kwargs={"reasoning_effort": "x"}))
