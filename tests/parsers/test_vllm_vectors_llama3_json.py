"""Regression vectors for the llama3_json deviations from vLLM 0.33.0 (docs/deviations.md).

Each vector comes from vLLM's `tests/tool_parsers/test_llama3_json_tool_parser.py`
(`vllm-project/vllm`); its pytest id starts with that test's path. vLLM 0.33.0's served
derender contradicts the assertion; tokenfront follows the test.
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_chunked import cases as chunked_cases
from vllm_vectors_chunked import problems as chunked_problems
from vllm_vectors_run import cases, needs_models, problems

FIXED = {
    "test_extract_tool_calls_brace_in_trailing_text",
    "test_extract_tool_calls_json_fragment_in_trailing_text",
}


@needs_models
@pytest.mark.parametrize(("vec", "mode"), cases("llama3_json", FIXED))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []


# Every llama3_json vector, also streamed in several token chunkings and along the test's own
# deltas (tests/parsers/vllm_vectors_chunked.py).
CHUNKED = {
    "test_extract_tool_calls_brace_in_trailing_text",
    "test_extract_tool_calls_deeply_nested_json",
    "test_extract_tool_calls_invalid_json",
    "test_extract_tool_calls_json_fragment_in_trailing_text",
    "test_extract_tool_calls_missing_name_key",
    "test_extract_tool_calls_missing_parameters_and_arguments_key",
    "test_extract_tool_calls_multiple_json",
    "test_extract_tool_calls_multiple_json_with_surrounding_text",
    "test_extract_tool_calls_multiple_json_with_whitespace",
    "test_extract_tool_calls_multiple_with_deep_nesting",
    "test_extract_tool_calls_no_json",
    "test_extract_tool_calls_simple",
    "test_extract_tool_calls_streaming_parallel_separators['; ']",
    "test_extract_tool_calls_streaming_parallel_separators[';']",
    "test_extract_tool_calls_streaming_parallel_separators[';\\n']",
    "test_extract_tool_calls_streaming_parallel_separators['\\n']",
    "test_extract_tool_calls_with_arguments",
    "test_extract_tool_calls_with_arguments_key",
    "test_extract_tool_calls_with_escaped_quotes_in_nested_json",
    "test_extract_tool_calls_with_quotes_and_brackets_in_string",
    "test_streaming_empty_object_not_a_call",
    "test_streaming_known_limitation_call_after_plain_json_answer",
    "test_streaming_malformed_interim_no_premature_flush",
    "test_streaming_plain_json_answer_not_a_call",
    "test_streaming_plain_json_answer_not_a_call<non_streaming>",
    "test_streaming_real_tool_call_unaffected",
    "test_regex_timeout_handling",
}


@needs_models
@pytest.mark.parametrize(("vec", "mode", "chunk"), chunked_cases("llama3_json", CHUNKED))
def test_vllm_vector_chunked(vec: dict[str, Any], mode: str, chunk: int | str | None) -> None:
    assert chunked_problems(vec, mode, chunk) == []
