"""Regression vectors for the glm47 tool parser (docs/deviations.md).

Each vector comes from a vLLM parser unit test (`vllm-project/vllm`,
tests/tool_parsers/test_glm47_moe_tool_parser.py, test_glm47_final_delta_bug.py and
tests/parser/engine/test_glm47_stray_tool_call.py); its pytest id starts with that test's path.
A stray `<tool_call>` before the real one no longer swallows the call (vLLM #60703).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import cases, needs_models, problems

TOOL = {vec["source"].split("::")[-1] for vec in load_vectors("glm47", kind="tool")}


@needs_models
@pytest.mark.parametrize(("vec", "mode"), cases("glm47", TOOL))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
