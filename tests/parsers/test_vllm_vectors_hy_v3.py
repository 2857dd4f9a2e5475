"""Regression vectors for the hy_v3 parsers (vLLM parser-test vectors, issue 8).

Each vector comes from a vLLM parser unit test (`vllm-project/vllm`, tests/tool_parsers/test_hy_v3_tool_parser.py, test_hy_truncated_stream.py, tests/reasoning/test_hy_v3_reasoning_parser.py); its pytest
id starts with that test's path. They run through the served pipeline one-shot and streamed
(one tokenizer token per delta): a stream cut before </tool_call> ends with the open call's arguments closed (docs/deviations.md).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import cases, needs_models, problems, request_context, vector_parser

ALL = {vec["source"].split("::")[-1] for vec in load_vectors("hy_v3")}


@needs_models
@pytest.mark.parametrize(("vec", "mode"), cases("hy_v3", ALL, kind=None))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []


SECOND_CUT = "tests/tool_parsers/test_hy_truncated_stream.py::test_hy3_second_call_truncated"


def _second_cut_vector() -> dict[str, Any]:
    return next(vec for vec in load_vectors("hy_v3") if vec["source"] == SECOND_CUT)


def _joined_calls(vec: dict[str, Any], first_chunk_end: str) -> list[tuple[str, Any]]:
    """The streamed calls when the output arrives in two chunks, the first ending at the
    first occurrence of `first_chunk_end` (empty: the whole output in one chunk)."""
    parser, tok = vector_parser(vec)
    ctx = request_context(vec)
    text = vec["model_output"]
    cut = text.find(first_chunk_end) if first_chunk_end else 0
    pieces = [p for p in (text[:cut], text[cut:]) if p]
    state = None
    calls: dict[int, list[Any]] = {}
    for i, piece in enumerate(pieces):
        ids = tok.encode(piece, add_special_tokens=False)
        delta, state = parser.stream(state, piece, ids, ctx, finished=i == len(pieces) - 1)
        for tc in (delta.tool_calls if delta else None) or []:
            slot = calls.setdefault(tc.index, ["", ""])
            slot[0] += tc.name or ""
            slot[1] += tc.arguments or ""
    return [(name, json.loads(args)) for name, args in (calls[k] for k in sorted(calls))]


@needs_models
@pytest.mark.parametrize("first_chunk_end", ["", "</tool_call>"])
def test_cut_call_in_the_chunk_that_closes_the_previous_call_is_opened_and_closed(
    first_chunk_end: str,
) -> None:
    vec = _second_cut_vector()
    assert _joined_calls(vec, first_chunk_end) == [
        ("get_weather", {"city": "Beijing"}),
        ("get_weather", {"date": "2026"}),
    ]
