"""granite (JSON array after `<|tool_call|>` / `<tool_call>`): golden vLLM answers and own cases."""

from __future__ import annotations

import pytest
from json_support import (
    TOOLS,
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


@pytest.mark.parametrize("case", golden_cases("granite"), ids=lambda c: c["id"])
def test_golden(case: dict) -> None:
    check_golden(case)


def test_text_marker_and_trailing_content() -> None:
    # vLLM's one-shot engine pass keeps text after the array deferred and never returns it.
    text = 'Sure.\n<tool_call>[{"name": "get_time", "arguments": {}}] Anything else?'
    assert oneshot("granite", MODEL, text) == ("Sure.", [("get_time", "{}")])


def test_schema_types_the_arguments() -> None:
    text = '<|tool_call|>[{"name": "get_weather", "arguments": {"city": 7, "unit": null}}]'
    assert oneshot("granite", MODEL, text) == (
        None, [("get_weather", '{"city": "7", "unit": "null"}')]
    )


def test_not_an_array_is_content() -> None:
    assert oneshot("granite", MODEL, "<|tool_call|>hello") == ("hello", [])


def test_cut_off_call_still_parsed() -> None:
    text = '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Par'
    assert oneshot("granite", MODEL, text) == (None, [("get_weather", '{"city": "Par')])


def test_tool_choice_none_strips_markup() -> None:
    text = 'Hi <|tool_call|>[{"name": "get_time", "arguments": {}}]'
    assert oneshot("granite", MODEL, text, TOOLS, "none") == ("Hi ", [])


def test_stream_unicode_nested() -> None:
    text = (
        '<|tool_call|>[{"name": "book_flight", "arguments": {"origin": "São Paulo", '
        '"passengers": [{"n": "Zoë"}], "options": {"a": true}}}]'
    )
    content, calls = joined(stream("granite", MODEL, token_chunks(text, MODEL)))
    assert content is None
    assert calls == [
        ("book_flight",
         '{"origin": "São Paulo", "passengers": [{"n": "Zoë"}], "options": {"a": true}}')
    ]  # fmt: skip


def test_stream_cut_off_flushes_at_finish() -> None:
    text = '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Pa'
    assert joined(stream("granite", MODEL, token_chunks(text, MODEL))) == (
        None, [("get_weather", '{"city": "Pa')]
    )


@pytest.mark.parametrize("vec", vectors("granite"), ids=lambda v: v["source"].split("::")[-1])
def test_vllm_vectors(vec: dict) -> None:
    assert check_vector(vec) == []


def test_stream_text_marker_with_ids() -> None:
    # `<tool_call>` is matched as text even when token ids are known (only the
    # `<|tool_call|>` marker is an id terminal).
    text = 'Ok <tool_call>[{"name": "get_time", "arguments": {}}]'
    assert joined(stream("granite", MODEL, token_chunks(text, MODEL))) == (
        "Ok ", [("get_time", "{}")]
    )


def test_stream_typed_out_token_marker_is_text() -> None:
    # The 3.0 marker spelled out in ordinary tokens is content once ids are known.
    chunks = [("<|tool", [1]), ("_call|>", [2]), ("[]", [3])]
    assert joined(stream("granite", MODEL, chunks)) == ("<|tool_call|>[]", [])
