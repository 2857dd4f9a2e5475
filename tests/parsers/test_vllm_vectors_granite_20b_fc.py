"""Regression vectors for the granite-20b-fc parsers (vLLM parser-test vectors, issue 8).

Each vector comes from a vLLM parser unit test (`vllm-project/vllm`, tests/tool_parsers/test_granite_20b_fc_tool_parser.py (the common ToolParserTests suite)); its pytest
id starts with that test's path. They run through the served pipeline one-shot and streamed
(one tokenizer token per delta): streaming text before the first <function_call> is content, the calls after it are parsed (docs/deviations.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import cases, needs_models, problems

ALL = {vec["source"].split("::")[-1] for vec in load_vectors("granite-20b-fc")}


@needs_models
@pytest.mark.parametrize(("vec", "mode"), cases("granite-20b-fc", ALL, kind=None))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
