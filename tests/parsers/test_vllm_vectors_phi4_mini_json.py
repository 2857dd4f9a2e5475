"""Regression vectors for phi4_mini_json (issue 8: where vLLM 0.33.0 contradicts its own parser
tests, follow the tests; docs/deviations.md).

Each vector comes from a vLLM parser unit test (`vllm-project/vllm`, tests/tool_parsers/test_phi4mini_tool_parser.py); its pytest id
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
    "test_empty_arguments[False]",
    "test_empty_arguments[True]",
    "test_escaped_strings[False]",
    "test_escaped_strings[True]",
    "test_malformed_input[False]<0>",
    "test_malformed_input[False]<1>",
    "test_malformed_input[False]<2>",
    "test_malformed_input[False]<3>",
    "test_malformed_input[False]<4>",
    "test_malformed_input[False]<5>",
    "test_malformed_input[True]<0>",
    "test_malformed_input[True]<1>",
    "test_malformed_input[True]<2>",
    "test_malformed_input[True]<3>",
    "test_malformed_input[True]<4>",
    "test_malformed_input[True]<5>",
    "test_no_tool_calls[False]",
    "test_no_tool_calls[True]",
    "test_parallel_tool_calls[False]",
    "test_parallel_tool_calls[True]",
    "test_single_tool_call_simple_args[False]",
    "test_single_tool_call_simple_args[True]",
    "test_streaming_split_invariance[parallel]",
    "test_streaming_split_invariance[single]",
    "test_surrounding_text[False]",
    "test_surrounding_text[True]",
    "test_various_data_types[False]",
    "test_various_data_types[True]",
}


@needs_models
@pytest.mark.parametrize(("vec", "mode", "chunk"), cases("phi4_mini_json", FIXED))
def test_vllm_vector(vec: dict[str, Any], mode: str, chunk: int | str | None) -> None:
    assert problems(vec, mode, chunk) == []
