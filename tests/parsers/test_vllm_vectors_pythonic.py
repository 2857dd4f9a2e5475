"""Regression vectors for the pythonic deviations from vLLM 0.33.0 (docs/deviations.md).

Each vector comes from a vLLM parser unit test (`vllm-project/vllm`, tests/tool_parsers/test_pythonic_tool_parser.py, test_llama4_pythonic_tool_parser.py, test_lfm2_tool_parser.py); its pytest id
starts with that test's path. vLLM 0.33.0's served derender contradicts the assertion;
tokenfront follows the test, in one-shot and streaming derender alike.
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_run import cases, needs_models, problems

FIXED = {
    "test_bad_sibling_call_does_not_drop_good_calls[False]",
    "test_bad_sibling_call_does_not_drop_good_calls[True]",
    "test_good_call_survives_unparsable_sibling",
    "test_non_finite_argument_rejected",
}


@needs_models
@pytest.mark.parametrize(("vec", "mode"), [c for p in ("pythonic", "llama4_pythonic", "lfm2") for c in cases(p, FIXED)])
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
