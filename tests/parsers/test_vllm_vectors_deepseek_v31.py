"""Regression vectors for the deepseek_v31 deviation from vLLM 0.33.0 (docs/deviations.md).

Each vector comes from vLLM's `tests/tool_parsers/test_deepseekv31_tool_parser.py`
(`vllm-project/vllm`); its pytest id starts with that test's path. vLLM 0.33.0's served
derender contradicts the assertion; tokenfront follows the test.
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_run import cases, needs_models, problems

FIXED = {
    "test_extract_tool_calls_unparsable_block[0]",
    "test_extract_tool_calls_unparsable_block[1]",
}


@needs_models
@pytest.mark.parametrize(("vec", "mode"), cases("deepseek_v31", FIXED))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
