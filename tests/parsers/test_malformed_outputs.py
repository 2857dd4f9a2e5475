"""Mangled model outputs (vLLM's test vectors spliced, cut and corrupted) never raise out of a
parser where the derender endpoint would answer a 500.

`CASES` are outputs that once did, with what they parse to now; each is a parser's vector with
its `model_output` replaced, run one-shot and streamed in several chunkings through the served
pipeline (`vllm_vectors_run`). `test_spliced_outputs_raise_no_server_error` makes new ones from
every parser's vectors with a fixed seed: one-shot may raise only what the endpoint answers as
the client's 400 (ValueError / TypeError / OverflowError, as vLLM does for internlm's two plugin
markers), a stream only `StreamParseError` (where vLLM's parser raised).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from vllm_vectors_loader import load_vectors, vector_parsers
from vllm_vectors_run import CHUNKINGS, needs_models, one_shot, streamed

from tokenfront.parsers.base import StreamParseError

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


def _mangle(rng: random.Random, a: str, b: str) -> str:
    """`a` cut, spliced with `b`, with a stray character or a piece of `b` put in, or a span cut
    out."""
    p = rng.randint(0, len(a))
    kind = rng.randrange(5)
    if kind == 0:
        return a[:p]
    if kind == 1:
        return a[:p] + b[rng.randint(0, len(b)) :]
    if kind == 2:
        return a[:p] + rng.choice('{}[]<>"\\,:\n\ufffd') + a[p:]
    if kind == 3:
        return a[:p] + a[rng.randint(p, len(a)) :]
    i = rng.randint(0, len(b))
    return a[:p] + b[i : i + rng.randint(1, 40)] + a[p:]


@needs_models
@pytest.mark.parametrize("parser", vector_parsers())
def test_spliced_outputs_raise_no_server_error(parser: str) -> None:
    rng = random.Random(parser)
    vectors = [v for v in load_vectors(parser, group=None) if v.get("model_output") and "single_call" not in v]
    outputs = [v["model_output"] for v in vectors]
    for _ in range(12):
        text = _mangle(rng, rng.choice(outputs), rng.choice(outputs))
        if not text:
            continue
        vec = dict(rng.choice(vectors), model_output=text, test_deltas_only=False)
        try:
            one_shot(vec)
        except (ValueError, TypeError, OverflowError):
            pass
        try:
            streamed(vec, rng.choice(("1", *CHUNKINGS)))
        except StreamParseError:
            pass
