"""Regression vectors for the internlm deviations from vLLM 0.33.0 (docs/deviations.md).

Each vector comes from a vLLM parser unit test (`vllm-project/vllm`, tests/tool_parsers/test_internlm2_tool_parser.py); its pytest id
starts with that test's path. vLLM 0.33.0's served derender contradicts the assertion;
tokenfront follows the test, in one-shot and streaming derender alike.
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_run import cases, needs_models, problems

FIXED = {
    "test_extract_unknown_tool_name_not_emitted",
    "test_malformed_input[False]<0>",
    "test_malformed_input[False]<2>",
    "test_malformed_input[False]<3>",
}


@needs_models
@pytest.mark.parametrize(("vec", "mode"), [c for p in ("internlm",) for c in cases(p, FIXED)])
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
