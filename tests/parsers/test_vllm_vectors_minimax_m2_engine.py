"""vLLM's MiniMax-M2 engine tests (issue 8) through the served pipeline.

Vectors from `vllm-project/vllm` tests/parser/engine/test_minimax_m2.py (tests/parsers/vllm_vectors/
minimax_m2.json): the combined reasoning + tool parser. An unclosed last parameter keeps its value
(docs/deviations.md). The tool-parser test file's vectors are in test_vllm_vectors_minimax_m2.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import modes, needs_models, problems

SOURCE = "tests/parser/engine/test_minimax_m2.py"


def _cases() -> list[Any]:
    return [
        pytest.param(vec, mode, id=f"{vec['source'].split('::', 1)[1]}:{vec['kind']}:{mode}")
        for vec in load_vectors("minimax_m2")
        if vec["source"].startswith(SOURCE)
        for mode in modes(vec)
    ]


@needs_models
@pytest.mark.parametrize(("vec", "mode"), _cases())
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
