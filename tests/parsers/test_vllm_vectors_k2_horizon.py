"""vLLM's k2_horizon parser tests (issue 8) pinned through the served pipeline.

Vectors from `vllm-project/vllm`
tests/tool_parsers/test_k2_horizon_tool_parser.py,
tests/reasoning/test_k2_horizon_reasoning_parser.py
(tests/parsers/vllm_vectors/k2_horizon.json),
one-shot and streamed one token per delta by `vllm_vectors_run`: tool vectors under the tool
parser (plus the reasoning parser a vector names), reasoning vectors under the reasoning parser
alone. Runs on tests/models/groupc-markers (IFM markers as tokens). `NOT_FOLLOWED` lists the vectors tokenfront does not satisfy, with the reason
(docs/deviations.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_run import needs_models, pinned_cases, problems

# "<test id after the file path>:<mode>" (or without ":<mode>" for every mode) -> reason.
NOT_FOLLOWED: dict[str, str] = {}



@needs_models
@pytest.mark.parametrize(("vec", "mode"), pinned_cases("k2_horizon", NOT_FOLLOWED))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
