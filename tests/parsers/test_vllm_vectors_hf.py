"""vLLM's response-template parser tests (`hf` in vLLM 0.33.0; issue 8) through the served pipeline.

Vectors from `vllm-project/vllm` tests/parser/test_response_template.py (tests/parsers/vllm_vectors/
hf.json) on tests/models/rtemplate-gemma (the test's Gemma 4 response_template); expectations the
test states by comparison with its registered Gemma4Parser are written out.
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import modes, needs_models, problems

SOURCE = "tests/parser/test_response_template.py"

# Asserted by the test, but vLLM 0.33.0 answers otherwise and tokenfront keeps 0.33.0's answer
# (vllm_033_differs; docs/deviations.md "Found, not implemented yet").
NOT_FOLLOWED = {
    "test_streaming_invalid_call_leaves_started_tool_call_incomplete[malformed]",
    "test_streaming_invalid_call_leaves_started_tool_call_incomplete[truncated]",
    "test_closed_malformed_call_does_not_block_following_call",
    "test_call_without_closer_is_dropped",
}


def _cases() -> list[Any]:
    return [
        pytest.param(vec, mode, id=f"{vec['source'].split('::', 1)[1]}:{vec['kind']}:{mode}")
        for vec in load_vectors("hf")
        if vec["source"].startswith(SOURCE) and vec["source"].split("::")[-1] not in NOT_FOLLOWED
        for mode in modes(vec)
    ]


@needs_models
@pytest.mark.parametrize(("vec", "mode"), _cases())
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
