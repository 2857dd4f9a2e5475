"""vLLM's MiniMax-M2 engine tests (issue 8) through the served pipeline.

Vectors from `vllm-project/vllm` tests/parser/engine/test_minimax_m2.py (tests/parsers/vllm_vectors/
minimax_m2.json): the combined reasoning + tool parser. An unclosed last parameter keeps its value
(docs/deviations.md). The tool-parser test file's vectors are in test_vllm_vectors_minimax_m2.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_run import needs_models, pinned_cases, problems

SOURCE = "tests/parser/engine/test_minimax_m2.py"



@needs_models
@pytest.mark.parametrize(("vec", "mode"), pinned_cases("minimax_m2", source=SOURCE))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
