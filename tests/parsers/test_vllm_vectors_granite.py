"""vLLM parser-test vectors for granite (tool and reasoning; issue 8).

Every vector of tests/parsers/vllm_vectors/granite.json holds one-shot and streamed one token per
delta; the reasoning streaming subcase "Continuing unexpected start reasoning sequence" swaps
its current and delta texts and runs as the test means it (`vllm_vectors_run.single_call`).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_chunked import cases as chunked_cases
from vllm_vectors_chunked import problems as chunked_problems
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import needs_models, pinned_cases, problems


@needs_models
@pytest.mark.parametrize(("vec", "mode"), pinned_cases("granite"))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []


# tests/parser/engine/test_granite.py streams in several chunk sizes: every chunking holds.
ENGINE = {
    vec["source"].split("::")[-1]
    for vec in load_vectors("granite", kind="tool")
    if vec["source"].startswith("tests/parser/engine/test_granite.py")
}


@needs_models
@pytest.mark.parametrize(("vec", "mode", "chunk"), chunked_cases("granite", ENGINE))
def test_engine_vector_chunked(vec: dict[str, Any], mode: str, chunk: int | str | None) -> None:
    assert chunked_problems(vec, mode, chunk) == []
