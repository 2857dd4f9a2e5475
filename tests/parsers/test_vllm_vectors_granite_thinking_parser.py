"""Regression vectors for the granite_thinking_parser parsers (vLLM parser-test vectors, issue 8).

Each vector comes from a vLLM parser unit test (`vllm-project/vllm`, tests/reasoning/test_granite_thinking_reasoning_parser.py); its pytest
id starts with that test's path. They run through the served pipeline one-shot and streamed
(one tokenizer token per delta): the parser starts in reasoning whatever enable_thinking says; enable_thinking=false only promotes reasoning to content (docs/deviations.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import cases, needs_models, problems

ALL = {vec["source"].split("::")[-1] for vec in load_vectors("granite_thinking_parser")}


@needs_models
@pytest.mark.parametrize(("vec", "mode"), cases("granite_thinking_parser", ALL, kind=None))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
