"""Regression vectors for llama4_pythonic (issue 8: where vLLM 0.33.0 contradicts its own parser
tests, follow the tests; docs/deviations.md).

Each vector comes from a vLLM parser unit test (`vllm-project/vllm`, tests/tool_parsers/test_llama4_pythonic_tool_parser.py); its pytest id
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
    "test_bad_sibling_call_does_not_drop_good_calls[False]",
    "test_bad_sibling_call_does_not_drop_good_calls[True]",
    "test_no_tool_call[False]",
    "test_no_tool_call[True]",
    "test_non_finite_argument_rejected",
    "test_regex_timeout_handling[False]",
    "test_streaming_mismatched_brackets_reported_once",
    "test_streaming_tool_call_with_large_steps",
    "test_tool_call[empty_dict_nonstreaming]",
    "test_tool_call[empty_dict_streaming]",
    "test_tool_call[empty_list_nonstreaming]",
    "test_tool_call[empty_list_streaming]",
    "test_tool_call[escaped_string_nonstreaming]",
    "test_tool_call[escaped_string_streaming]",
    "test_tool_call[more_types_nonstreaming]",
    "test_tool_call[more_types_streaming]",
    "test_tool_call[parallel_calls_nonstreaming0]",
    "test_tool_call[parallel_calls_nonstreaming1]",
    "test_tool_call[parallel_calls_streaming0]",
    "test_tool_call[parallel_calls_streaming1]",
    "test_tool_call[parameterless_nonstreaming]",
    "test_tool_call[parameterless_streaming]",
    "test_tool_call[python_tag_nonstreaming]",
    "test_tool_call[python_tag_streaming]",
    "test_tool_call[simple_nonstreaming]",
    "test_tool_call[simple_streaming]",
}


@needs_models
@pytest.mark.parametrize(("vec", "mode", "chunk"), cases("llama4_pythonic", FIXED))
def test_vllm_vector(vec: dict[str, Any], mode: str, chunk: int | str | None) -> None:
    assert problems(vec, mode, chunk) == []
