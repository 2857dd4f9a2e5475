"""Regression vectors for the longcat tool parser (issue 8).

Each vector comes from a vLLM parser unit test (`vllm-project/vllm`, tests/tool_parsers/test_longcat_tool_parser.py);
its pytest id starts with that test's path. The shared ToolParserTests suite (tests/tool_parsers/common_tests.py).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import cases, needs_models, problems

ALL = {vec["source"].split("::")[-1] for vec in load_vectors("longcat", kind="tool")}


@needs_models
@pytest.mark.parametrize(("vec", "mode"), cases("longcat", ALL))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
