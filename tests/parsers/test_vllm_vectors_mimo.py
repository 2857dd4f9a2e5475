"""Regression vectors for the mimo tool parser (issue 8).

Each vector comes from a vLLM parser unit test (`vllm-project/vllm`, tests/tool_parsers/test_mimov2_flash_tool_parser.py);
its pytest id starts with that test's path. MimoV2FlashToolParser is vLLM's `mimo` tool parser; single-call vectors are one stateless
streaming call.
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import cases, needs_models, problems

ALL = {vec["source"].split("::")[-1] for vec in load_vectors("mimo", kind="tool")}


@needs_models
@pytest.mark.parametrize(("vec", "mode"), cases("mimo", ALL))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
