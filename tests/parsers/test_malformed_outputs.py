"""Mangled model outputs (found by splicing, cutting and corrupting vLLM's test vectors) never
raise out of a parser: the derender endpoint answers them with a message, not a 500.

Each case is a parser's vector with its `model_output` replaced; it runs one-shot and streamed
in several chunkings through the served pipeline (`vllm_vectors_run`).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import needs_models, one_shot, streamed

# (parser, the source of the vector whose setting is reused, mangled output, expected one-shot
# (content, reasoning, calls))
CASES: list[tuple[str, str, str, tuple[Any, Any, list[Any]]]] = [
    (  # a corrupted name opener: the arguments after it belong to no call
        "plamo3",
        "tests/parser/engine/test_plamo3.py::test_tool_name_cutoffs_do_not_leak_markers<3>",
        "Before tools.<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|>"
        "<|plamo:begin_tool_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|>"
        '<|plamo:constrain|>json<|plamo:msg|>{"city":"東京"}',
        (None, "Before tools.", []),
    ),
    (  # the same, with a call closer after the arguments
        "plamo3",
        "tests/tool_parsers/test_plamo3_tool_parser.py::test_extract_tool_calls[case4]",
        "Before tools.<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|>"
        "<|plamo:begin_tool_\ufffdname:plamo|>sum<|plamo:end_tool_name:plamo|>"
        '<|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{"a": 1}'
        "<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>",
        ("Before tools.", None, []),
    ),
]


def _vector(parser: str, source: str, output: str) -> dict[str, Any]:
    base = next(v for v in load_vectors(parser) if v["source"] == source)
    return dict(base, model_output=output, test_deltas_only=False)


@needs_models
@pytest.mark.parametrize(("parser", "source", "output", "expected"), CASES)
def test_mangled_output_is_parsed_one_shot(
    parser: str, source: str, output: str, expected: tuple[Any, Any, list[Any]]
) -> None:
    assert one_shot(_vector(parser, source, output)) == expected


@needs_models
@pytest.mark.parametrize("chunking", ["1", "3", "mix15", "all"])
@pytest.mark.parametrize(("parser", "source", "output", "expected"), CASES)
def test_mangled_output_streams_as_one_shot(
    parser: str, source: str, output: str, expected: tuple[Any, Any, list[Any]], chunking: str
) -> None:
    assert streamed(_vector(parser, source, output), chunking) == expected
