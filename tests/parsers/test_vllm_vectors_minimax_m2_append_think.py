"""vLLM's minimax_m2_append_think reasoning tests (issue 8) through the served pipeline (tests/parsers/vllm_vectors/minimax_m2_append_think.json)."""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_run import needs_models, pinned_cases, problems

SOURCE = "tests/reasoning/test_minimax_m2_append_reasoning_parser.py"



@needs_models
@pytest.mark.parametrize(("vec", "mode"), pinned_cases("minimax_m2_append_think", source=SOURCE))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
