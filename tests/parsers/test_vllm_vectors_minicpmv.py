"""vLLM's MiniCPM-V reasoning tests (issue 8) through the served pipeline.

Vectors from `vllm-project/vllm` tests/parser/engine/test_minicpmv_reasoning.py (tests/parsers/
vllm_vectors/minicpmv.json) on the qwen3 tokenizer (the golden corpus model). With thinking off,
streamed content drops a `<think>` block and the reserved markers as one-shot parsing does
(docs/deviations.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_run import needs_models, pinned_cases, problems

SOURCE = "tests/parser/engine/test_minicpmv_reasoning.py"


@needs_models
@pytest.mark.parametrize(("vec", "mode"), pinned_cases("minicpmv", source=SOURCE))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
