"""Regression vectors for the hy_v4 parsers (vLLM parser-test vectors, issue 8).

Each vector comes from a vLLM parser unit test (`vllm-project/vllm`, tests/tool_parsers/test_hy_v4_tool_parser.py, test_hy_v4_duplicate_arg_key.py, test_hy_truncated_stream.py, tests/reasoning/test_hy_v4_reasoning_parser.py); its pytest
id starts with that test's path. They run through the served pipeline one-shot and streamed
(one tokenizer token per delta): vectors with `:opensource` markers run on tests/models/hy4-opensource (`test_model`); truncated streams are closed and a repeated argument key streams valid JSON (docs/deviations.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import cases, needs_models, problems

ALL = {vec["source"].split("::")[-1] for vec in load_vectors("hy_v4")}


@needs_models
@pytest.mark.parametrize(("vec", "mode"), cases("hy_v4", ALL, kind=None))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
