"""Regression vectors for the apertus tool parser (issue 8).

Each vector comes from a vLLM parser unit test (`vllm-project/vllm`, tests/tool_parsers/test_apertus_tool_parser.py);
its pytest id starts with that test's path. Streamed one token per delta over the Qwen3 tokenizer (the golden model), where the
`<|tools_suffix|>` marker arrives as `]<`, `|`, ... : the held `<` is no content (a deviation
from vLLM 0.33.0, docs/deviations.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import cases, needs_models, problems

ALL = {vec["source"].split("::")[-1] for vec in load_vectors("apertus", kind="tool")}


@needs_models
@pytest.mark.parametrize(("vec", "mode"), cases("apertus", ALL))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
