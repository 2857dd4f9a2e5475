"""Regression vectors for the llama3_json deviations from vLLM 0.33.0 (docs/deviations.md).

Each vector comes from vLLM's `tests/tool_parsers/test_llama3_json_tool_parser.py`
(`vllm-project/vllm`); its pytest id starts with that test's path. vLLM 0.33.0's served
derender contradicts the assertion; tokenfront follows the test.
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_run import cases, needs_models, problems

FIXED = {
    "test_extract_tool_calls_brace_in_trailing_text",
    "test_extract_tool_calls_json_fragment_in_trailing_text",
}


@needs_models
@pytest.mark.parametrize(("vec", "mode"), cases("llama3_json", FIXED))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
