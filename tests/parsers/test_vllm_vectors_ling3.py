"""vLLM's ling3 engine tests (issue 8) through the served pipeline (tests/parsers/vllm_vectors/ling3.json)."""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_run import needs_models, pinned_cases, problems

SOURCE = "tests/parser/engine/test_ling3.py"



@needs_models
@pytest.mark.parametrize(("vec", "mode"), pinned_cases("ling3", source=SOURCE))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
