"""Regression vectors for the internlm deviations from vLLM 0.33.0 (docs/deviations.md).

Each vector comes from a vLLM parser unit test (`vllm-project/vllm`, tests/tool_parsers/test_internlm2_tool_parser.py); its pytest id
starts with that test's path. vLLM 0.33.0's served derender contradicts the assertion;
tokenfront follows the test, in one-shot and streaming derender alike.
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_chunked import cases as chunked_cases
from vllm_vectors_chunked import problems as chunked_problems
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


# Streamed in several token chunkings as well (tests/parsers/vllm_vectors_chunked.py).
CHUNKED = FIXED | {
    "test_empty_arguments[True]",
    "test_surrounding_text[True]",
}


@needs_models
@pytest.mark.parametrize(("vec", "mode", "chunk"), chunked_cases("internlm", CHUNKED))
def test_vllm_vector_chunked(vec: dict[str, Any], mode: str, chunk: int | str | None) -> None:
    assert chunked_problems(vec, mode, chunk) == []
