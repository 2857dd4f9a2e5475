"""vLLM's MiniCPM-V reasoning tests (issue 8) through the served pipeline.

Vectors from `vllm-project/vllm` tests/parser/engine/test_minicpmv_reasoning.py (tests/parsers/
vllm_vectors/minicpmv.json) on the qwen3 tokenizer (the golden corpus model). With thinking off,
streamed content drops a `<think>` block and the reserved markers as one-shot parsing does
(docs/deviations.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_oas import oas_cases
from vllm_vectors_run import needs_models, pinned_cases, problems
from vllm_vectors_run import problems as oas_problems

SOURCE = "tests/parser/engine/test_minicpmv_reasoning.py"


@needs_models
@pytest.mark.parametrize(("vec", "mode"), pinned_cases("minicpmv", source=SOURCE))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []


# One-shot test outputs streamed (chunkings 1 / mix14 / all) give the one-shot answer:
# reserved markers after `</think>` are dropped from streamed content too.
ONE_SHOT_STREAMED = {
    "TestThinking::test_reserved_markers_are_removed",
}


@needs_models
@pytest.mark.parametrize(
    ("vec", "chunking"), oas_cases("minicpmv", ONE_SHOT_STREAMED, kind="reasoning")
)
def test_one_shot_output_streamed(vec: dict[str, Any], chunking: str) -> None:
    assert oas_problems(vec, "streaming", chunking) == []
