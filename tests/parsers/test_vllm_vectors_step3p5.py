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

_R0 = "pre-engine Step3p5ReasoningParser rule; vLLM 0.33.0's engine parser reads the output as Qwen3 reasoning (text before <think> is reasoning, the newline after </think> stays content; tests/parser/engine/test_step3p5.py::test_newline_before_think_end_dropped asserts '\\nThe answer.'), probed"

# "<test id after the file path>:<mode>" (or without ":<mode>" for every mode) -> reason.
NOT_FOLLOWED: dict[str, str] = {
    "test_reasoning[new_line]": _R0,
    "test_reasoning[new_line_streaming]": _R0,
    "test_reasoning[new_line_streaming_complex_content]": _R0,
    "test_step3p5_preserves_prefix_before_think[0]": _R0,
    "test_step3p5_preserves_prefix_before_think[1]": _R0,
    "test_step3p5_preserves_prefix_before_think[2]": _R0,
    "test_step3p5_preserves_prefix_before_think[3]": _R0,
    "test_step3p5_preserves_prefix_before_think[4]": _R0,
    "test_step3p5_preserves_prefix_before_think[5]": _R0,
    "test_step3p5_preserves_prefix_before_think[6]": _R0,
    "test_step3p5_preserves_prefix_before_think[7]": _R0,
    "test_step3p5_preserves_prefix_before_think[8]": _R0,
    "test_step3p5_streaming_drops_leading_newline": _R0,
}



@needs_models
@pytest.mark.parametrize(("vec", "mode"), pinned_cases("step3p5", NOT_FOLLOWED))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
