"""Regression vectors for the gigachat3 tool parser (issue 8).

Each vector comes from a vLLM parser unit test (`vllm-project/vllm`, tests/tool_parsers/test_gigachat3_tool_parser.py);
its pytest id starts with that test's path. The call markers are several Qwen3 tokens here, so they arrive split over deltas: they stay
out of the content and a split `</s>` out of the arguments (deviations from vLLM 0.33.0,
docs/deviations.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import cases, needs_models, problems

ALL = {vec["source"].split("::")[-1] for vec in load_vectors("gigachat3", kind="tool")}


@needs_models
@pytest.mark.parametrize(("vec", "mode"), cases("gigachat3", ALL))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []


def _stream_in_one_chunk(text: str) -> tuple[str, list[tuple[str | None, str]]]:
    from vllm_vectors_run import output_parser

    from tokenfront.parsers.base import ParseContext

    parser, tok = output_parser("gigachat3", "qwen3")
    ctx = ParseContext(
        tools=[{"type": "function", "function": {"name": "get_weather", "parameters": {}}}],
        tool_choice="auto",
        enable_auto_tools=True,
        prompt_token_ids=[],
    )
    delta, _ = parser.stream(None, text, tok.encode(text), ctx, finished=True)
    assert delta is not None
    calls = [(tc.name, tc.arguments or "") for tc in delta.tool_calls]
    return delta.content or "", calls


@needs_models
def test_whole_call_in_the_last_chunk_sends_name_and_arguments() -> None:
    text = '<|function_call|>{"name": "get_weather", "arguments": {"city": "Paris"}}'
    content, calls = _stream_in_one_chunk(text)
    assert content == ""
    assert calls[0][0] == "get_weather"
    assert "".join(a for _, a in calls) == '{"city": "Paris"}'


@needs_models
def test_content_and_call_in_the_last_chunk_keep_the_call() -> None:
    text = 'Let me check.<|function_call|>{"name": "get_weather", "arguments": {"city": "Paris"}}'
    content, calls = _stream_in_one_chunk(text)
    assert content == "Let me check."
    assert [c[0] for c in calls if c[0]] == ["get_weather"]
    assert "".join(a for _, a in calls) == '{"city": "Paris"}'


@needs_models
def test_partial_marker_at_the_end_of_the_stream_is_content() -> None:
    content, calls = _stream_in_one_chunk("Hello <|function")
    assert content == "Hello <|function"
    assert calls == []
