"""Regression vectors for minimax_m2 (issue 8: where vLLM 0.33.0 contradicts its own parser
tests, follow the tests; docs/deviations.md).

Each vector comes from a vLLM parser unit test (`vllm-project/vllm`, tests/tool_parsers/test_minimax_m2_tool_parser.py); its pytest id
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
    "test_anyof_nullable_param_non_null_value",
    "test_anyof_nullable_param_null_value",
    "test_anyof_nullable_param_object_value",
    "test_content_before_tool_call",
    "test_different_functions",
    "test_header_and_params_in_separate_chunks",
    "test_incremental_chunks",
    "test_multi_invoke_indices",
    "test_multiple_params",
    "test_plain_content",
    "test_prev_tool_call_arr_multiple",
    "test_single_chunk_complete",
    "test_tool_call_fields",
    "test_two_invokes_in_single_delta",
    "test_two_invokes_incremental",
}


@needs_models
@pytest.mark.parametrize(("vec", "mode", "chunk"), cases("minimax_m2", FIXED))
def test_vllm_vector(vec: dict[str, Any], mode: str, chunk: int | str | None) -> None:
    assert problems(vec, mode, chunk) == []


# Under the reasoning parser alone a repeated `</think>` in the streamed content is dropped, as
# one-shot (vLLM 0.33.0 streams it: docs/deviations.md).
# One-shot, a reasoning section the output closes at once (or an empty output) is "" (vLLM 0.33.0:
# None).
REASONING_FIXED = {
    "test_reasoning[double_end_token]",
    "test_reasoning[double_end_token_streaming]",
    "test_reasoning[shortest_reasoning]",
    "test_reasoning[empty]",
}


@needs_models
@pytest.mark.parametrize(
    ("vec", "mode", "chunk"), cases("minimax_m2", REASONING_FIXED, kind="reasoning")
)
def test_vllm_reasoning_vector(vec: dict[str, Any], mode: str, chunk: int | str | None) -> None:
    assert problems(vec, mode, chunk) == []
