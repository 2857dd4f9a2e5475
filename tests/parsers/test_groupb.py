"""Group B parsers checked directly (their vLLM goldens are in tests/golden/vllm-groupb.jsonl):
gigachat3, granite-20b-fc, apertus, poolside_v1, hy_v3 tool parsers and the nemotron_v3 /
granite_thinking_parser / poolside_v1 / hy_v3 / ling3 reasoning parsers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hf_tokenizers import hf_tokenizer
from json_support import joined, oneshot, stream, token_chunks, tool

from tokenfront.parsers.base import ParseContext
from tokenfront.parsers.pipeline import ChatOutputParser
from tokenfront.parsers.registry import reasoning_parser_names, tool_parser_names

MODEL = "qwen3"
REPO_MODELS = Path(__file__).resolve().parents[1] / "models"
TYPED = [
    tool("search", {"query": {"type": "string"}, "limit": {"type": "int64"},
                    "exact": {"type": ["boolean", "null"]}, "score": {"anyOf": [{"type": "number"}]},
                    "tags": {"type": "array"}}),
]  # fmt: skip


def test_registered() -> None:
    tools = set(tool_parser_names())
    assert {"gigachat3", "granite-20b-fc", "apertus", "poolside_v1", "hy_v3", "ling3"} <= tools
    assert {"nemotron_v3", "granite_thinking_parser", "poolside_v1", "hy_v3", "ling3"} <= set(
        reasoning_parser_names()
    )


def test_gigachat3() -> None:
    text = 'Hi<|function_call|>{"name": "get_weather", "arguments": {"city": "Zoë"}}</s>'
    assert oneshot("gigachat3", MODEL, text) == ("Hi", [("get_weather", '{"city": "Zoë"}')])
    bad = '<|function_call|>{"name": "get_weather", "arguments": {"city"'
    assert oneshot("gigachat3", MODEL, bad) == (bad, [])
    content, calls = joined(stream("gigachat3", MODEL, token_chunks(text[:-4], MODEL)))
    assert calls == [("get_weather", '{"city": "Zoë"}')]


def test_granite_20b_fc() -> None:
    text = 'ok <function_call> {"name": "get_time", "arguments": {}} <function_call> {"name": "get_weather", "arguments": {"city": "X"}}'
    assert oneshot("granite-20b-fc", MODEL, text) == (
        "ok ", [("get_time", "{}"), ("get_weather", '{"city": "X"}')]
    )
    # Text before the first marker streams as content, the calls after it are parsed (vLLM's
    # test_surrounding_text[True]; 0.33.0 streamed the whole output as content).
    content, calls = joined(stream("granite-20b-fc", MODEL, token_chunks(text, MODEL)))
    assert (content, calls) == ("ok ", [("get_time", ""), ("get_weather", '{"city": "X"}')])
    _, calls = joined(stream("granite-20b-fc", MODEL, token_chunks(text[3:], MODEL)))
    # Empty arguments are falsy, so vLLM never streams them.
    assert calls == [("get_time", ""), ("get_weather", '{"city": "X"}')]


def test_apertus() -> None:
    text = 'A <|tools_prefix|>[{"get_weather": {"city": "Paris"}}] tail<|tools_suffix|> B'
    assert oneshot("apertus", MODEL, text) == ("A\ntail\nB", [("get_weather", '{"city": "Paris"}')])
    streamed = stream("apertus", MODEL, token_chunks(text, MODEL))
    assert joined(streamed)[1] == [("get_weather", '{"city": "Paris"}')]


def test_poolside_v1() -> None:
    text = (
        "Hi<tool_call>search\n<arg_key>query</arg_key><arg_value>a \"b\"</arg_value>"
        "<arg_key>limit</arg_key><arg_value>{'x': None}</arg_value></tool_call>"
    )
    tools = [tool("search", {"query": {"type": "string"}, "limit": {"type": "object"}})]
    expected = ("Hi", [("search", '{"query": "a \\"b\\"", "limit": {"x": null}}')])
    assert oneshot("poolside_v1", MODEL, text, tools=tools) == expected
    assert joined(stream("poolside_v1", MODEL, token_chunks(text, MODEL), tools=tools)) == expected
    # An empty call name is dropped while streaming.
    assert joined(stream("poolside_v1", MODEL, token_chunks("<tool_call></tool_call>x", MODEL))) == (
        "x", []
    )


def _hy_tokenizer() -> Any:
    return hf_tokenizer(REPO_MODELS / "hy-synth")


def _hy(text: str, chunked: bool) -> tuple[str | None, list[tuple[str, str]]]:
    tok = _hy_tokenizer()
    pipe = ChatOutputParser(tok, "hy_v3", None, enable_auto_tools=True)
    ctx = ParseContext(tools=TYPED, tool_choice="auto", prompt_token_ids=[])
    if not chunked:
        msg = pipe.parse(text, [], ctx)
        return msg["content"], [(c["function"]["name"], c["function"]["arguments"]) for c in msg["tool_calls"]]
    ids = tok.encode(text, add_special_tokens=False)
    state, deltas, shown = None, [], ""
    for i in range(len(ids)):
        full = tok.decode(ids[: i + 1])
        delta, state = pipe.stream(state, full[len(shown) :], ids[i : i + 1], ctx, finished=i == len(ids) - 1)
        state = json.loads(json.dumps(state))
        shown = full
        if delta is not None:
            deltas.append({"content": delta.content, "tool_calls": [c.to_dict() for c in delta.tool_calls]})
    return joined(deltas)


def test_hy_v3_typed_values() -> None:
    text = (
        "pre<tool_calls><tool_call>search<tool_sep><arg_key>query</arg_key><arg_value>42</arg_value>"
        "<arg_key>limit</arg_key><arg_value>7</arg_value><arg_key>exact</arg_key><arg_value>TRUE</arg_value>"
        "<arg_key>score</arg_key><arg_value>1e2</arg_value><arg_key>tags</arg_key><arg_value>[1]</arg_value>"
        "</tool_call></tool_calls>"
    )
    args = '{"query": "42", "limit": 7, "exact": true, "score": 100.0, "tags": [1]}'
    assert _hy(text, chunked=False) == ("pre", [("search", args)])
    assert _hy(text, chunked=True) == ("pre", [("search", args)])


def _reasoning(name: str, text: str, kwargs: dict[str, Any] | None = None) -> tuple[Any, Any]:
    tok = hf_tokenizer(Path(__file__).resolve().parents[3] / "shared/models/qwen3")
    pipe = ChatOutputParser(tok, None, name, enable_auto_tools=False)
    msg = pipe.parse(text, [], ParseContext(chat_template_kwargs=kwargs or {}))
    return msg["reasoning"], msg["content"]


def test_nemotron_and_granite_thinking() -> None:
    assert _reasoning("nemotron_v3", "<think>a  \n</think>b") == ("a", "b")
    assert _reasoning("nemotron_v3", "<think>a", {"force_nonempty_content": True}) == (None, "a")
    assert _reasoning("granite_thinking_parser", "<think>a\n</think>\n\nb") == ("a", "b")
    assert _reasoning("hy_v3", "<think>a</think>b") == (None, "<think>a</think>b")
    assert _reasoning("hy_v3", "a</think>b", {"reasoning_effort": "high"}) == ("a", "b")
