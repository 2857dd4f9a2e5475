"""vLLM's kimi_k3 parser tests (issue 8) pinned through the served pipeline.

Vectors from `vllm-project/vllm`
tests/tool_parsers/test_kimi_k3_tool_parser.py,
tests/reasoning/test_kimi_k3_reasoning_parser.py
(tests/parsers/vllm_vectors/kimi_k3.json),
one-shot and streamed one token per delta by `vllm_vectors_run`: tool vectors under the tool
parser (plus the reasoning parser a vector names), reasoning vectors under the reasoning parser
alone. Runs on tests/models/groupc-markers (XTML markers as tokens). `NOT_FOLLOWED` lists the vectors tokenfront does not satisfy, with the reason
(docs/deviations.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_run import needs_models, pinned_cases, problems

# "<test id after the file path>:<mode>" (or without ":<mode>" for every mode) -> reason.
NOT_FOLLOWED: dict[str, str] = {}



@needs_models
@pytest.mark.parametrize(("vec", "mode"), pinned_cases("kimi_k3", NOT_FOLLOWED))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
