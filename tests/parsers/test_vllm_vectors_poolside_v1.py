"""vLLM's poolside_v1 parser tests (issue 8) pinned through the served pipeline.

Vectors from `vllm-project/vllm`
tests/tool_parsers/test_poolside_v1_tool_parser.py
(tests/parsers/vllm_vectors/poolside_v1.json),
one-shot and streamed one token per delta by `vllm_vectors_run`: tool vectors under the tool
parser (plus the reasoning parser a vector names), reasoning vectors under the reasoning parser
alone. Runs on tests/models/poolside-synth. `NOT_FOLLOWED` lists the vectors tokenfront does not satisfy, with the reason
(docs/deviations.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_run import needs_models, pinned_cases, problems

# "<test id after the file path>:<mode>" (or without ":<mode>" for every mode) -> reason.
NOT_FOLLOWED: dict[str, str] = {}



@needs_models
@pytest.mark.parametrize(("vec", "mode"), pinned_cases("poolside_v1", NOT_FOLLOWED))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
