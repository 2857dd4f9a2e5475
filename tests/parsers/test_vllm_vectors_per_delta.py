"""The per-delta assertions of vLLM's parser tests (one streamed delta at a time), checked on
tokenfront's streaming pipeline: incremental argument deltas, which delta carries a call's
arguments, tool-call delta indices, content before a later call's arguments."""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_deltas import PER_DELTA, delta_problems
from vllm_vectors_loader import load_vectors, vector_id
from vllm_vectors_run import needs_models

VECTORS = [
    pytest.param(vec, id=vector_id(vec))
    for vec in load_vectors(group=None)
    if set(PER_DELTA) & set(vec["asserted"])
]


def test_every_per_delta_assertion_is_collected() -> None:
    assert len(VECTORS) >= 10


@needs_models
@pytest.mark.parametrize("vec", VECTORS)
def test_per_delta_assertion_holds(vec: dict[str, Any]) -> None:
    assert delta_problems(vec) == []
