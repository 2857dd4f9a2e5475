"""vLLM's minimax_m3 parser tests (issue 8) pinned through the served pipeline.

Vectors from `vllm-project/vllm`
tests/tool_parsers/test_minimax_m3_tool_parser.py,
tests/parser/engine/test_minimax_m3.py,
tests/reasoning/test_minimax_m3_reasoning_parser.py
(tests/parsers/vllm_vectors/minimax_m3.json),
one-shot and streamed one token per delta by `vllm_vectors_run`: tool vectors under the tool
parser (plus the reasoning parser a vector names), reasoning vectors under the reasoning parser
alone. Runs on tests/models/minimax-m3 (`<mm:think>` markers as tokens). `NOT_FOLLOWED` lists the vectors tokenfront does not satisfy, with the reason
(docs/deviations.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_run import needs_models, pinned_cases, problems

_R0 = "targets the post-0.33.0 Rust-bridge MinimaxM3ToolParser; vLLM 0.33.0's engine parser (probed; tests/parser/engine/test_minimax_m3.py::TestStreaming::test_truncated_invoke_keeps_completed_params) keeps an unfinished invoke as a call and drops text inside the tool block"

# "<test id after the file path>:<mode>" (or without ":<mode>" for every mode) -> reason.
NOT_FOLLOWED: dict[str, str] = {
    "test_streaming_error_recovery_keeps_committed_tool_call_structured": _R0,
    "test_streaming_parse_error_emits_buffer_and_later_deltas": _R0,
}



@needs_models
@pytest.mark.parametrize(("vec", "mode"), pinned_cases("minimax_m3", NOT_FOLLOWED))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
