"""Regression vectors for the cohere_command4 parsers (vLLM parser-test vectors, issue 8).

Each vector comes from a vLLM parser unit test (`vllm-project/vllm`, tests/parser/cohere/test_tool_calls.py, test_reasoning.py, test_citations.py); its pytest
id starts with that test's path. They run through the served pipeline one-shot and streamed
(one tokenizer token per delta): tool vectors run with the same name as companion reasoning parser (vLLM's unified CohereCommandParser); reasoning vectors under --reasoning-parser alone (a request without tools drops calls either way).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import cases, needs_models, problems

ALL = {vec["source"].split("::")[-1] for vec in load_vectors("cohere_command4")}


@needs_models
@pytest.mark.parametrize(("vec", "mode"), cases("cohere_command4", ALL, kind=None))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
