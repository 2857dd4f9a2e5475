"""Regression vectors for the minicpm5 tool parser (issue 8).

Each vector comes from a vLLM parser unit test (`vllm-project/vllm`, tests/tool_parsers/test_minicpm5xml_tool_parser.py);
its pytest id starts with that test's path. All are pinned, among them
`test_thinking_only_sentencepiece_normalized_in_content`: without a call the content is the
parser's normalized text (served vLLM 0.33.0 keeps the raw text; docs/deviations.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import cases, needs_models, problems

ALL = {vec["source"].split("::")[-1] for vec in load_vectors("minicpm5", kind="tool")}


@needs_models
@pytest.mark.parametrize(("vec", "mode"), cases("minicpm5", ALL))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
