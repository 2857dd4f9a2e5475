"""Regression vectors for the qwen3 deviations from vLLM 0.33.0 (docs/deviations.md).

Each vector comes from a vLLM parser unit test (`vllm-project/vllm`, tests/tool_parsers/test_qwen3_xml_coder_shared.py and test_qwen3coder_tool_parser.py); its pytest id
starts with that test's path. vLLM 0.33.0's served derender contradicts the assertion;
tokenfront follows the test, in one-shot and streaming derender alike.
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_run import cases, needs_models, problems

FIXED = {
    "test_anyof_string_null_with_null_literal_returns_none[coder]<None>",
    "test_anyof_string_null_with_null_literal_returns_none[xml]<None>",
    "test_python_none_value_for_nullable_int[coder]",
    "test_python_none_value_for_nullable_int[xml]",
    "test_extract_tool_calls_complex_type_with_single_quote[coder]",
    "test_extract_tool_calls_complex_type_with_single_quote[xml]",
    "test_double_encoded_object_param_nonstreaming[coder]",
    "test_double_encoded_object_param_nonstreaming[xml]",
    "test_double_encoded_object_param_streaming[coder]",
    "test_double_encoded_object_param_streaming[xml]",
    "test_none_tool_calls_filtered",
    "test_none_tool_calls_filtered[coder]",
    "test_none_tool_calls_filtered[xml]",
    "test_jinja_template_phantom_tool_call_is_rejected_nonstreaming[coder]",
    "test_jinja_template_phantom_tool_call_is_rejected_nonstreaming[xml]",
}


@needs_models
@pytest.mark.parametrize(("vec", "mode"), [c for p in ("qwen3_coder", "qwen3_xml") for c in cases(p, FIXED)])
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
