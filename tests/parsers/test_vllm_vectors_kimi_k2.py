"""Regression vectors for the kimi_k2 tool parser (docs/deviations.md).

Each vector comes from a vLLM parser unit test (`vllm-project/vllm`,
tests/tool_parsers/test_kimi_k2_tool_parser.py); its pytest id starts with that test's path.
`BARE_COUNTER` pins the deviation from vLLM 0.33.0: a call header that is only a counter
(`<|tool_call_begin|>0 <|tool_call_argument_begin|>{...}`) calls the request's only tool, or
the only one whose properties hold every argument key (no call when that is ambiguous or the
arguments do not parse); the call id is the counter.
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_chunked import cases as chunked_cases
from vllm_vectors_chunked import one_shot as chunked_one_shot
from vllm_vectors_chunked import problems as chunked_problems
from vllm_vectors_chunked import streamed as chunked_streamed
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import cases, needs_models, problems

BARE_COUNTER = {
    "test_bare_counter",
    "test_bare_counter_single_tool_invalid_json_still_extracted",
    "test_bare_counter_multiple_tools_infers_by_args",
    "test_bare_counter_multiple_tools_skips_unsafe_inference[ambiguous]",
    "test_bare_counter_multiple_tools_skips_unsafe_inference[malformed_json]",
}
ALL = {vec["source"].split("::")[-1] for vec in load_vectors("kimi_k2", kind="tool")}


@needs_models
@pytest.mark.parametrize(("vec", "mode"), cases("kimi_k2", ALL))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []


@needs_models
@pytest.mark.parametrize(("vec", "mode"), cases("kimi_k2", BARE_COUNTER))
def test_bare_counter_both_ways(vec: dict[str, Any], mode: str) -> None:
    """The bare-counter vectors hold one-shot and streamed alike."""
    other = "streaming" if mode == "non_streaming" else "non_streaming"
    assert problems(vec, other) == []


# tests/parser/engine/test_kimi_k2_streaming.py: arguments the schema retypes (`{"v":"3"}` for
# an integer) stream as the one-shot extraction returns them, byte for byte (vLLM 0.33.0 streams
# the raw text; docs/deviations.md).
STREAMING_SOURCE = "tests/parser/engine/test_kimi_k2_streaming.py"
RETYPED = {
    vec["source"].split("::")[-1]
    for vec in load_vectors("kimi_k2", kind="tool")
    if vec["source"].startswith(STREAMING_SOURCE)
}


@needs_models
@pytest.mark.parametrize(("vec", "mode", "chunk"), chunked_cases("kimi_k2", RETYPED))
def test_streamed_arguments_equal_one_shot(
    vec: dict[str, Any], mode: str, chunk: int | str | None
) -> None:
    assert chunked_problems(vec, mode, chunk) == []
    if mode == "streaming":
        one_shot = [args for _, args in chunked_one_shot(vec)[2]]
        assert [args for _, args in chunked_streamed(vec, chunk)[2]] == one_shot


# One-shot, a reasoning section the output closes at once (`</think>…`, `<think></think>…`, an
# empty output) is "" as the tests assert (vLLM 0.33.0: None; docs/deviations.md).
EMPTY_REASONING = {"test_extract_reasoning_empty_thinking"}


@needs_models
@pytest.mark.parametrize(
    ("vec", "mode", "chunk"), chunked_cases("kimi_k2", EMPTY_REASONING, kind="reasoning")
)
def test_empty_reasoning_vector(vec: dict[str, Any], mode: str, chunk: int | str | None) -> None:
    assert chunked_problems(vec, mode, chunk) == []
