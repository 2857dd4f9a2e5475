"""Regression vectors for the apertus tool parser (issue 8).

Each vector comes from a vLLM parser unit test (`vllm-project/vllm`, tests/tool_parsers/test_apertus_tool_parser.py);
its pytest id starts with that test's path. Streamed one token per delta over the Qwen3 tokenizer (the golden model), where the
`<|tools_suffix|>` marker arrives as `]<`, `|`, ... : the held `<` is no content (a deviation
from vLLM 0.33.0, docs/deviations.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import cases, needs_models, problems

ALL = {vec["source"].split("::")[-1] for vec in load_vectors("apertus", kind="tool")}


@needs_models
@pytest.mark.parametrize(("vec", "mode"), cases("apertus", ALL))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []


@needs_models
def test_text_before_the_block_marker_in_the_same_chunk_stays_content() -> None:
    from vllm_vectors_run import output_parser

    from tokenfront.parsers.base import ParseContext

    parser, tok = output_parser("apertus", "qwen3")
    tools = [{"type": "function", "function": {"name": "f", "parameters": {}}}]
    ctx = ParseContext(tools=tools, tool_choice="auto", enable_auto_tools=True, prompt_token_ids=[])
    first = 'Content<|tools_prefix|>[{"f'
    delta, state = parser.stream(None, first, tok.encode(first), ctx, finished=False)
    assert delta is not None and delta.content == "Content"
    rest = '": {"a": 1}}]<|tools_suffix|>'
    delta, _ = parser.stream(state, rest, tok.encode(rest), ctx, finished=True)
    assert delta is not None and [tc.name for tc in delta.tool_calls if tc.name] == ["f"]
