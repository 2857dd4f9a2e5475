"""phi4_mini_json: golden vLLM answers and own cases.

vLLM 0.33.0 streams nothing for this format; tokenfront streams it as vLLM's tests assert, so
the recorded streams (and the nested-array one-shot case) are deviations
(tests/golden/deviations.json, docs/deviations.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from json_support import (
    check_golden,
    check_vector,
    golden_cases,
    joined,
    oneshot,
    stream,
    token_chunks,
    vectors,
)

MODEL = "synthetic-multi"
DEVIATIONS = set(
    json.loads((Path(__file__).parents[1] / "golden" / "deviations.json").read_text("utf-8"))
)


@pytest.mark.parametrize("case", golden_cases("phi4_mini_json"), ids=lambda c: c["id"])
def test_golden(case: dict) -> None:
    if case["id"] in DEVIATIONS:
        pytest.skip("deliberate deviation from vLLM 0.33.0")
    check_golden(case)


def test_calls_drop_surrounding_text() -> None:
    text = 'Ok. functools[{"name": "get_time", "parameters": {}}, {"name": "get_weather", "arguments": {"city": "Zoë"}}] bye'
    assert oneshot("phi4_mini_json", MODEL, text) == (
        None, [("get_time", "{}"), ("get_weather", '{"city": "Zoë"}')]
    )


def test_plain_and_missing_key() -> None:
    assert oneshot("phi4_mini_json", MODEL, "no calls") == ("no calls", [])
    text = 'functools[{"name": "get_time"}]'
    assert oneshot("phi4_mini_json", MODEL, text) == (text, [])


def test_nested_arrays_are_read_whole() -> None:
    # vLLM 0.33.0's `functools[(.*?)]` stops at the first "]" (no calls); vLLM's
    # test_various_data_types[False] asserts the call (docs/deviations.md).
    text = 'functools[{"name": "get_weather", "arguments": {"tags": ["a"]}}]'
    assert oneshot("phi4_mini_json", MODEL, text) == (None, [("get_weather", '{"tags": ["a"]}')])


@pytest.mark.parametrize("size", [1, 2, 3, 7, 1000])
def test_stream_sends_content_and_calls(size: int) -> None:
    # vLLM 0.33.0 streams nothing at all; its tests assert the calls (docs/deviations.md).
    text = 'Hello functools[{"name": "get_time", "arguments": {}}, {"name": "f", "arguments": {"a": [1]}}] bye'
    chunks = token_chunks(text, MODEL)
    grouped = [
        ("".join(t for t, _ in chunks[i : i + size]), [n for _, ids in chunks[i : i + size] for n in ids])
        for i in range(0, len(chunks), size)
    ]
    assert joined(stream("phi4_mini_json", MODEL, grouped)) == (
        "Hello  bye",
        [("get_time", "{}"), ("f", '{"a": [1]}')],
    )


@pytest.mark.parametrize("text", ["Hello functools", 'functools[{"name": "get_time", "argu'])
def test_stream_without_a_call_is_content(text: str) -> None:
    assert joined(stream("phi4_mini_json", MODEL, token_chunks(text, MODEL))) == (text, [])


@pytest.mark.parametrize("vec", vectors("phi4_mini_json"), ids=lambda v: v["source"].split("::")[-1])
def test_vllm_vectors(vec: dict) -> None:
    assert check_vector(vec) == []


def test_the_calls_span_is_where_vllms_pattern_first_matches() -> None:
    # found with two `find`s: the pattern itself scans to the end from every marker that no
    # `]` follows (quadratic in an output of many unclosed lists)
    import random
    import re

    from tokenfront.parsers.tools.phi4mini import _calls_span

    pattern = re.compile(r"functools\[(.*?)\]", re.DOTALL)
    rnd = random.Random(7)
    bits = ["functools[", "functools", "[", "]", "x", "\n", '{"name": "f"}', "tools["]
    for _ in range(3000):
        text = "".join(rnd.choice(bits) for _ in range(rnd.randint(0, 12)))
        match = pattern.search(text)
        assert _calls_span(text) == (None if match is None else (match.start(), match.end() - 1))
