"""xlam: golden vLLM answers and own cases."""

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


@pytest.mark.parametrize("case", golden_cases("xlam"), ids=lambda c: c["id"])
def test_golden(case: dict) -> None:
    check_golden(case)


def test_wrappers() -> None:
    body = '[{"name": "get_weather", "arguments": {"city": "東京"}}]'
    want = [("get_weather", '{"city": "東京"}')]
    assert oneshot("xlam", MODEL, body) == (None, want)
    assert oneshot("xlam", MODEL, f"Here:\n```json\n{body}\n```") == ("Here:", want)
    # The wrapper removed leaves "" (not None): vLLM only nulls whitespace-only content.
    assert oneshot("xlam", MODEL, f"<tool_call>{body}</tool_call>") == ("", want)
    assert oneshot("xlam", MODEL, f"<think>hmm</think>{body}") == ("<think>hmm</think>", want)


def test_text_before_bare_array_is_content() -> None:
    text = 'Sure [{"name": "get_time", "arguments": {}}]'
    assert oneshot("xlam", MODEL, text) == (text, [])


def test_string_arguments_kept_and_bad_items_skipped() -> None:
    text = '[{"name": "get_time", "arguments": "{}"}, {"name": "x"}, 3]'
    assert oneshot("xlam", MODEL, text) == (None, [("get_time", "{}")])


EOS = ("", [151645])  # the stop token ends the stream; its text is left out


def test_stream_single_call() -> None:
    text = '[{"name": "get_weather", "arguments": {"city": "Paris", "unit": "c"}}]'
    content, calls = joined(stream("xlam", MODEL, [*token_chunks(text, MODEL), EOS]))
    assert content is None
    assert calls == [("get_weather", '{"city": "Paris", "unit": "c"}')]


def test_stream_final_chunk_with_arguments_repeats_them() -> None:
    # vLLM quirk: xLAM never records streamed arguments, so the end-of-stream flush appends
    # the whole argument object again when the final chunk itself carried an argument delta.
    text = '[{"name": "get_time", "arguments": {"tz": "UTC"}}]'
    _, calls = joined(stream("xlam", MODEL, token_chunks(text, MODEL)))
    assert calls == [("get_time", '{"tz": "UTC"}{"tz": "UTC"}')]


def test_stream_plain_text() -> None:
    assert joined(stream("xlam", MODEL, token_chunks("Plain answer.", MODEL))) == (
        "Plain answer.", [],
    )


@pytest.mark.parametrize("vec", vectors("xlam"), ids=lambda v: v["source"].split("::")[-1])
def test_vllm_vectors(vec: dict) -> None:
    assert check_vector(vec) == []
