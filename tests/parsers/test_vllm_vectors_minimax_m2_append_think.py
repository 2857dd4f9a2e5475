"""vLLM's minimax_m2_append_think reasoning tests (issue 8) through the served pipeline (tests/parsers/vllm_vectors/minimax_m2_append_think.json)."""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import modes, needs_models, problems

SOURCE = "tests/reasoning/test_minimax_m2_append_reasoning_parser.py"


def _cases() -> list[Any]:
    return [
        pytest.param(vec, mode, id=f"{vec['source'].split('::', 1)[1]}:{vec['kind']}:{mode}")
        for vec in load_vectors("minimax_m2_append_think")
        if vec["source"].startswith(SOURCE)
        for mode in modes(vec)
    ]


@needs_models
@pytest.mark.parametrize(("vec", "mode"), _cases())
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
