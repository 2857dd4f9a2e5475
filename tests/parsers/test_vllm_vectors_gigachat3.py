"""Regression vectors for the gigachat3 tool parser (issue 8).

Each vector comes from a vLLM parser unit test (`vllm-project/vllm`, tests/tool_parsers/test_gigachat3_tool_parser.py);
its pytest id starts with that test's path. The call markers are several Qwen3 tokens here, so they arrive split over deltas: they stay
out of the content and a split `</s>` out of the arguments (deviations from vLLM 0.33.0,
docs/deviations.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import cases, needs_models, problems

ALL = {vec["source"].split("::")[-1] for vec in load_vectors("gigachat3", kind="tool")}


@needs_models
@pytest.mark.parametrize(("vec", "mode"), cases("gigachat3", ALL))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
