"""Regression vectors for the minicpm5 tool parser (issue 8).

Each vector comes from a vLLM parser unit test (`vllm-project/vllm`, tests/tool_parsers/test_minicpm5xml_tool_parser.py);
its pytest id starts with that test's path. All are pinned, among them
`test_thinking_only_sentencepiece_normalized_in_content`: without a call the content is the
parser's normalized text (served vLLM 0.33.0 keeps the raw text; docs/deviations.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import cases, needs_models, problems

ALL = {vec["source"].split("::")[-1] for vec in load_vectors("minicpm5", kind="tool")}


@needs_models
@pytest.mark.parametrize(("vec", "mode"), cases("minicpm5", ALL))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []


@needs_models
def test_text_calls_and_text_in_one_chunk_are_all_streamed() -> None:
    from vllm_vectors_run import output_parser

    from tokenfront.parsers.base import ParseContext

    parser, tok = output_parser("minicpm5", "qwen3")
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": schema}}]
    ctx = ParseContext(tools=tools, tool_choice="auto", enable_auto_tools=True, prompt_token_ids=[])
    call = '<function name="get_weather"><param name="city">{}</param></function>'
    text = f"Head\n{call.format('Paris')}\nMiddle\n{call.format('Rome')}\nTail"
    delta, _ = parser.stream(None, text, tok.encode(text), ctx, finished=True)
    assert delta is not None
    assert "Head" in (delta.content or "") and "Tail" in (delta.content or "")
    names = [tc.name for tc in delta.tool_calls if tc.name]
    assert names == ["get_weather", "get_weather"]
    args = "".join(tc.arguments or "" for tc in delta.tool_calls)
    assert args == '{"city": "Paris"}{"city": "Rome"}'
