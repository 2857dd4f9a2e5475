"""Regression vectors for the seed_oss tool parser (docs/deviations.md).

Each vector comes from a vLLM parser unit test (`vllm-project/vllm`,
tests/tool_parsers/test_seed_oss_tool_parser.py); its pytest id starts with that test's path.
They run the tool parser alone (no reasoning parser): the `<seed:think>` block is content, a
`<seed:tool_call>` quoted inside it is no call, and the content before the first call keeps
its trailing whitespace. `test_streaming_tool_calls_no_tools` is one stateless streaming call
(the runner feeds its delta as the first chunk).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import cases, needs_models, problems

ALL = {vec["source"].split("::")[-1] for vec in load_vectors("seed_oss", kind="tool")}


@needs_models
@pytest.mark.parametrize(("vec", "mode"), cases("seed_oss", ALL))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
