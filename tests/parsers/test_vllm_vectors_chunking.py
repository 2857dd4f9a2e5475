"""Streamed vLLM parser-test vectors give the same answer in any chunking of the tokens.

An engine's generate stream may carry several tokens per chunk (the shared corpus streams
random runs of 1-4 or 1 and 5 tokens, sometimes the whole output at once). vLLM's tests
stream one token per delta; what they assert about the joined stream must hold for every
chunking. A vector that already fails one token per delta is pinned (or listed as not
followed) by its family module, so only vectors that pass that way are checked here.
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import CHUNKINGS, modes, needs_models, problems

pytestmark = needs_models


def _streaming_by_parser() -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for vec in load_vectors(group=None):
        if "single_call" in vec or vec.get("test_deltas_only"):
            continue  # what these assert depends on the test's own deltas
        if "streaming" in modes(vec):
            out.setdefault(vec["parser"], []).append(vec)
    return out


STREAMING = _streaming_by_parser()

# (vLLM test id, chunking) -> why that chunking still differs (docs/deviations.md).
NOT_YET: dict[tuple[str, str], str] = {}


@pytest.mark.parametrize("chunking", CHUNKINGS)
@pytest.mark.parametrize("parser", sorted(STREAMING))
def test_joined_stream_does_not_depend_on_the_chunking(parser: str, chunking: str) -> None:
    failures = []
    for vec in STREAMING[parser]:
        if problems(vec, "streaming") or (vec["source"], chunking) in NOT_YET:
            continue
        found = problems(vec, "streaming", chunking)
        if found:
            failures.append(f"{vec['source']}: {found[:2]}")
    assert not failures, "\n".join(failures)
