"""Regression vectors for the glm45 deviations from vLLM 0.33.0 (docs/deviations.md).

Each vector comes from a vLLM parser unit test (`vllm-project/vllm`, tests/tool_parsers/test_glm4_moe_tool_parser.py); its pytest id
starts with that test's path. vLLM 0.33.0's served derender contradicts the assertion;
tokenfront follows the test, in one-shot and streaming derender alike.
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_run import cases, needs_models, problems

FIXED = {
    "test_extract_tool_calls[multiple_tool_calls]",
    "test_extract_tool_calls[single_tool_call]",
    "test_extract_tool_calls[tool_call_with_mixed_args]",
    "test_extract_tool_calls_empty_arguments",
    "test_extract_tool_calls_numeric_deserialization",
    "test_extract_tool_calls_special_characters",
    "test_unicode_characters_preserved",
    "test_zero_argument_tool_call",
}

# Content before the first call keeps its trailing whitespace; a call without `</tool_call>`
# (or `<tool_call>` with nothing after it) is no call, its text stays content.
CONTENT_KEPT = {
    "test_extract_tool_calls[tool_call_with_content_before]",
    "test_extract_tool_calls_with_thinking_tags",
    "test_extract_tool_calls_mixed_content",
    "test_extract_tool_calls_incomplete_tool_call",
    "test_malformed_tool_call_no_regex_match",
}


@needs_models
@pytest.mark.parametrize(
    ("vec", "mode"), [c for p in ("glm45",) for c in cases(p, FIXED | CONTENT_KEPT)]
)
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []


def test_every_glm45_vector_passes() -> None:
    """All glm45 tool vectors hold, not only the pinned deviations."""
    from vllm_vectors_loader import load_vectors
    from vllm_vectors_run import modes

    failing = [
        (vec["source"], mode, problems(vec, mode))
        for vec in load_vectors("glm45", kind="tool")
        for mode in modes(vec)
        if problems(vec, mode)
    ]
    assert failing == []


def test_every_glm45_reasoning_vector_passes() -> None:
    """The reasoning vectors too (the engine-era test_glm4_moe_reasoning_parser.py, which
    asserts vLLM 0.33.0's split: output without `<think>` is reasoning)."""
    from vllm_vectors_loader import load_vectors
    from vllm_vectors_run import modes

    failing = [
        (vec["source"], mode, problems(vec, mode))
        for vec in load_vectors("glm45", kind="reasoning")
        for mode in modes(vec)
        if problems(vec, mode)
    ]
    assert failing == []
