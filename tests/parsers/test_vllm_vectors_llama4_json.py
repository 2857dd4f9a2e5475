"""vLLM's Llama JSON engine tests (issue 8) through the served llama4_json pipeline.

Vectors from `vllm-project/vllm` tests/parser/engine/test_llama_json.py (tests/parsers/vllm_vectors/
llama4_json.json; the engine parser post-dates 0.33.0 and is registered as llama3_json /
llama4_json). Span-helper and event internals are not transcribed. The vectors marked
`vllm_033_differs` are the engine's documented changes from the legacy parser that vLLM 0.33.0
serves; tokenfront keeps 0.33.0's answers there, so only the others are pinned.
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import modes, needs_models, problems

SOURCE = "tests/parser/engine/test_llama_json.py"


def _cases() -> list[Any]:
    return [
        pytest.param(vec, mode, id=f"{vec['source'].split('::', 1)[1]}:{mode}")
        for vec in load_vectors("llama4_json")
        if vec["source"].startswith(SOURCE) and not vec.get("vllm_033_differs")
        for mode in modes(vec)
    ]


@needs_models
@pytest.mark.parametrize(("vec", "mode"), _cases())
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
