"""Regression vectors for the dots tool parser (issue 8).

Each vector comes from a vLLM parser unit test (`vllm-project/vllm`, tests/tool_parsers/test_dots_tool_parser.py);
its pytest id starts with that test's path. A closing `</dots_function_call>` split over deltas is no content, and a partial opener held
at the end of a stream is flushed as content (deviations from vLLM 0.33.0, docs/deviations.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import cases, needs_models, problems

ALL = {vec["source"].split("::")[-1] for vec in load_vectors("dots", kind="tool")}


@needs_models
@pytest.mark.parametrize(("vec", "mode"), cases("dots", ALL))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
