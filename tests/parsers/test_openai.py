"""openai (gpt-oss Harmony): vLLM's own test vectors (text rendering) plus own cases."""

from __future__ import annotations

import pytest
from calls_support import make, run_stream
from vllm_vectors_loader import check_result, load_vectors

from tokenfront.parsers.engines.channels import parse_header, parse_messages

CALL = (
    "<|channel|>analysis<|message|>Think.<|end|><|start|>assistant to=functions.get_weather"
    '<|channel|>commentary <|constrain|>json<|message|>{"city": "東京"}<|call|>'
)


def parser():
    return make("openai", "qwen3")


@pytest.mark.parametrize(
    "vec", list(load_vectors("openai", kind="tool")), ids=lambda v: v["source"].split("::")[-1]
)
def test_vllm_vectors(vec: dict) -> None:
    result = parser().extract_tool_calls(vec["model_output"])
    calls = [(c.name, c.arguments) for c in result.tool_calls]
    assert (
        check_result(
            vec, content=result.content, tool_calls=calls, tools_called=result.tools_called
        )
        == []
    )


def test_header_fields() -> None:
    header = parse_header("assistant to=functions.f<|channel|>commentary <|constrain|>json")
    assert (header.role, header.channel, header.recipient, header.content_type) == (
        "assistant",
        "commentary",
        "functions.f",
        "json",
    )


def test_oneshot_split() -> None:
    text = CALL + "<|start|>assistant<|channel|>final<|message|>Done.<|return|>"
    parsed = parse_messages(text)
    assert parsed.reasoning == "Think."
    assert parsed.content == "Done."
    assert [(c.name, c.arguments) for c in parsed.calls] == [
        ("get_weather", '{"city": "\\u6771\\u4eac"}')
    ]


def test_cut_off_header_is_content() -> None:
    assert parse_messages("<|channel|>fin").content == "<|channel|>fin"


def test_stream() -> None:
    pieces = [
        "<|channel|>analysis<|message|>Th",
        "ink.<|end|><|start|>assistant to=functions.get_weather",
        "<|channel|>commentary <|constrain|>json<|message|>",
        '{"city": ',
        '"東京"}<|ca',
        "ll|>",
    ]
    deltas, content, calls = run_stream(parser(), [(p, []) for p in pieces])
    assert content is None
    assert "".join(d.reasoning for d in deltas if d and d.reasoning) == "Think."
    assert calls == [("get_weather", '{"city": "東京"}')]
    assert deltas[2] is not None and deltas[2].tool_calls[0].arguments == ""
