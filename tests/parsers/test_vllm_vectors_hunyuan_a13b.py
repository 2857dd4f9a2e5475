"""Regression vectors for hunyuan_a13b (issue 8: where vLLM 0.33.0 contradicts its own parser
tests, follow the tests; docs/deviations.md).

Each vector comes from a vLLM parser unit test (`vllm-project/vllm`, tests/tool_parsers/test_hunyuan_a13b_tool_parser.py); its pytest id
starts with that test's path. Every vector listed passes one-shot and streamed, one token per
delta, in several larger token chunkings, the whole output in one delta, and along the test's
own deltas (`vllm_vectors_chunked`).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_chunked import cases, problems
from vllm_vectors_run import needs_models

FIXED = {
    "test_hunyuan_a13b_tool_parser_extract[0]",
    "test_hunyuan_a13b_tool_parser_extract[1]",
    "test_hunyuan_a13b_tool_parser_extract[2]",
    "test_hunyuan_a13b_tool_parser_extract[3]",
    "test_hunyuan_a13b_tool_parser_extract[4]",
    "test_hunyuan_a13b_tool_parser_extract[5]",
    "test_hunyuan_a13b_tool_parser_non_ascii",
    "test_hunyuan_a13b_tool_parser_streaming[0]",
    "test_hunyuan_a13b_tool_parser_streaming[1]",
    "test_hunyuan_a13b_tool_parser_streaming[2]",
    "test_hunyuan_a13b_tool_parser_streaming[3]",
    "test_hunyuan_a13b_tool_parser_streaming_one_empty_args_tool[0]",
    "test_hunyuan_a13b_tool_parser_streaming_one_empty_args_tool[1]",
}


@needs_models
@pytest.mark.parametrize(("vec", "mode", "chunk"), cases("hunyuan_a13b", FIXED))
def test_vllm_vector(vec: dict[str, Any], mode: str, chunk: int | str | None) -> None:
    assert problems(vec, mode, chunk) == []
