"""xlam: golden vLLM answers and own cases."""

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


@pytest.mark.parametrize("case", golden_cases("xlam"), ids=lambda c: c["id"])
def test_golden(case: dict) -> None:
    if case["id"] in DEVIATIONS:
        pytest.skip("deliberate deviation from vLLM 0.33.0")
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


def test_stream_final_chunk_with_arguments_sends_them_once() -> None:
    # vLLM 0.33.0's served stream appends the whole argument object again when the final chunk
    # itself carried an argument delta (xLAM never records streamed arguments); vLLM's
    # test_extract_tool_calls_streaming_incremental asserts them once (docs/deviations.md).
    text = '[{"name": "get_time", "arguments": {"tz": "UTC"}}]'
    _, calls = joined(stream("xlam", MODEL, token_chunks(text, MODEL)))
    assert calls == [("get_time", '{"tz": "UTC"}')]


def test_a_call_whole_in_the_final_chunk_is_one_entry() -> None:
    # vLLM 0.33.0's end-of-stream flush appends to the final delta's last entry, so the name
    # step and the arguments arrive as one entry (seed 46, outputs-syn-xlam-20)
    text = '[{"name": "get_weather", "arguments": {"city": "Paris"}}]'
    ids = [i for _, chunk in token_chunks(text, MODEL) for i in chunk]
    (delta,) = stream("xlam", MODEL, [(text, ids)])
    assert delta["tool_calls"] == [
        {"index": 0, "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
    ]


@pytest.mark.parametrize("size", [1, 2, 3, 5, 1000])
def test_stream_any_chunking_completes_every_call(size: int) -> None:
    text = (
        '[{"name": "get_time", "arguments": {}}, '
        '{"name": "search", "arguments": {"q": {"a": {"b": {"c": [1]}}}}}]'
    )
    chunks = token_chunks(text, MODEL)
    grouped = [
        ("".join(t for t, _ in chunks[i : i + size]), [n for _, ids in chunks[i : i + size] for n in ids])
        for i in range(0, len(chunks), size)
    ]
    _, calls = joined(stream("xlam", MODEL, grouped))
    assert calls == [("get_time", "{}"), ("search", '{"q": {"a": {"b": {"c": [1]}}}}')]


def test_stream_fence_opener_split_over_tokens_stays_out_of_the_content() -> None:
    # "```" and "json" are separate tokens: the bare fence waits for the next token
    body = '[{"name": "get_time", "arguments": {"tz": "UTC"}}]'
    text = f"Sure.\n```json\n{body}\n```"
    deltas = stream("xlam", MODEL, token_chunks(text, MODEL))
    content, calls = joined(deltas)
    assert "`" not in (content or "")
    assert calls == [("get_time", '{"tz": "UTC"}')]


def test_stream_code_fence_is_released_with_the_next_token() -> None:
    text = "Code:\n```python\nprint(1)\n```\nDone."
    deltas = stream("xlam", MODEL, token_chunks(text, MODEL))
    assert joined(deltas) == (text, [])
    shown = [d.get("content") for d in deltas]
    assert "```" not in shown and "```python" in shown  # the fence went out with "python"


def test_stream_plain_text() -> None:
    assert joined(stream("xlam", MODEL, token_chunks("Plain answer.", MODEL))) == (
        "Plain answer.", [],
    )


@pytest.mark.parametrize("vec", vectors("xlam"), ids=lambda v: v["source"].split("::")[-1])
def test_vllm_vectors(vec: dict) -> None:
    assert check_vector(vec) == []
