"""vLLM's step3p5 parser tests (issue 8) pinned through the served pipeline.

Vectors from `vllm-project/vllm`
tests/tool_parsers/test_step3p5_tool_parser.py,
tests/reasoning/test_step3p5_reasoning_parser.py,
tests/parser/engine/test_step3p5.py
(tests/parsers/vllm_vectors/step3p5.json),
one-shot and streamed one token per delta by `vllm_vectors_run`: tool vectors under the tool
parser (plus the reasoning parser a vector names), reasoning vectors under the reasoning parser
alone. Runs on the shared qwen3 tokenizer (the tests use Step-3.5-Flash's; `<think>` and
`<tool_call>` are single tokens in both). `NOT_FOLLOWED` lists the vectors tokenfront does not satisfy, with the reason
(docs/deviations.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_run import needs_models, pinned_cases, problems

_R0 = (
    "vLLM 0.33.0's engine test keeps the newline after </think>; tokenfront follows "
    "tests/reasoning/test_step3p5_reasoning_parser.py (the issue-8 folders), which drops it "
    "(test_step3p5_streaming_drops_leading_newline, test_reasoning[new_line_streaming], "
    "test_step3p5_preserves_prefix_before_think[1, 2, 8])"
)

# "<test id after the file path>:<mode>" (or without ":<mode>" for every mode) -> reason.
NOT_FOLLOWED: dict[str, str] = {
    "test_newline_before_think_end_dropped": _R0,
    "test_newline_before_think_end_dropped_streaming": _R0,
}



@needs_models
@pytest.mark.parametrize(("vec", "mode"), pinned_cases("step3p5", NOT_FOLLOWED))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
