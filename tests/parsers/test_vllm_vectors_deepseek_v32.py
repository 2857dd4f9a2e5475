"""Regression vectors for deepseek_v32 (issue 8: where vLLM 0.33.0 contradicts its own parser tests,
follow the tests; docs/deviations.md).

Each vector comes from a vLLM parser unit test (`vllm-project/vllm`: tests/tool_parsers/,
tests/reasoning/ and tests/parser/engine/ DeepSeek DSML tests); its pytest id starts with that
test's path. Every vector runs one-shot and streamed (`dsml_vector_cases`).
"""

from __future__ import annotations

from typing import Any

import pytest
from dsml_vector_cases import vector_cases
from vllm_vectors_chunked import problems
from vllm_vectors_run import needs_models

NOT_FOLLOWED: set[str] = set()


@needs_models
@pytest.mark.parametrize(("vec", "mode", "chunk"), vector_cases("deepseek_v32", NOT_FOLLOWED))
def test_vllm_vector(vec: dict[str, Any], mode: str, chunk: int | str | None) -> None:
    assert problems(vec, mode, chunk) == []
