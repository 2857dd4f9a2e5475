"""phi4_mini_json: golden vLLM answers and own cases (streaming never emits anything)."""

from __future__ import annotations

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


@pytest.mark.parametrize("case", golden_cases("phi4_mini_json"), ids=lambda c: c["id"])
def test_golden(case: dict) -> None:
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


def test_nested_brackets_cut_the_regex() -> None:
    # The non-greedy `functools[(.*?)]` stops at the first "]": invalid JSON, no calls, no content.
    text = 'functools[{"name": "get_weather", "arguments": {"tags": ["a"]}}]'
    assert oneshot("phi4_mini_json", MODEL, text) == (None, [])


def test_stream_emits_nothing() -> None:
    text = 'Hello functools[{"name": "get_time", "arguments": {}}]'
    assert joined(stream("phi4_mini_json", MODEL, token_chunks(text, MODEL))) == (None, [])


@pytest.mark.parametrize("vec", vectors("phi4_mini_json"), ids=lambda v: v["source"].split("::")[-1])
def test_vllm_vectors(vec: dict) -> None:
    assert check_vector(vec) == []
