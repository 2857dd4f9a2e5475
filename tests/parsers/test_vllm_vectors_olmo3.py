"""vLLM's olmo3 tool parser tests (issue 8) through the served pipeline.

Vectors from `vllm-project/vllm` tests/tool_parsers/test_olmo3_tool_parser.py (tests/parsers/
vllm_vectors/olmo3.json, kind tool). A call with a bytes or non-finite argument is dropped and
its siblings kept (docs/deviations.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import modes, needs_models, problems

SOURCE = "tests/tool_parsers/test_olmo3_tool_parser.py"


def _cases() -> list[Any]:
    return [
        pytest.param(vec, mode, id=f"{vec['source'].split('::', 1)[1]}:{vec['kind']}:{mode}")
        for vec in load_vectors("olmo3")
        if vec["source"].startswith(SOURCE)
        for mode in modes(vec)
    ]


@needs_models
@pytest.mark.parametrize(("vec", "mode"), _cases())
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
