"""Regression vectors for the glm45 deviations from vLLM 0.33.0 (docs/deviations.md).

Each vector comes from a vLLM parser unit test (`vllm-project/vllm`, tests/tool_parsers/test_glm4_moe_tool_parser.py); its pytest id
starts with that test's path. vLLM 0.33.0's served derender contradicts the assertion;
tokenfront follows the test, in one-shot and streaming derender alike.
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_run import cases, needs_models, problems

FIXED = {
    "test_extract_tool_calls[multiple_tool_calls]",
    "test_extract_tool_calls[single_tool_call]",
    "test_extract_tool_calls[tool_call_with_mixed_args]",
    "test_extract_tool_calls_empty_arguments",
    "test_extract_tool_calls_numeric_deserialization",
    "test_extract_tool_calls_special_characters",
    "test_unicode_characters_preserved",
    "test_zero_argument_tool_call",
}


@needs_models
@pytest.mark.parametrize(("vec", "mode"), [c for p in ("glm45",) for c in cases(p, FIXED)])
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
