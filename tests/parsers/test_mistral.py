"""mistral (pre-v11 `[TOOL_CALLS][...]`), HF and mistral-common tokenizers: golden + own cases."""

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

from tokenfront.parsers.tools.mistral import mistral_tool_call_id


@pytest.mark.parametrize("case", golden_cases("mistral"), ids=lambda c: c["id"])
def test_golden(case: dict) -> None:
    check_golden(case)


@pytest.mark.parametrize("model", ["mistral", "mistral-common"])
def test_one_call_and_text_before(model: str) -> None:
    text = 'Let me check.\n[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Zoë"}}]'
    assert oneshot("mistral", model, text) == (
        "Let me check.\n", [("get_weather", '{"city": "Zoë"}')]
    )


def test_ids_are_nine_alphanumerics() -> None:
    for _ in range(20):
        call_id = mistral_tool_call_id()
        assert len(call_id) == 9 and call_id.isalnum()


def test_malformed_keeps_body_without_marker() -> None:
    text = '[TOOL_CALLS][{"name": "get_time", "arguments": {}]'
    assert oneshot("mistral", "mistral", text) == ('[{"name": "get_time", "arguments": {}]', [])


def test_bare_object_string_args_and_missing_args() -> None:
    text = '[TOOL_CALLS]{"name": "get_time"}'
    assert oneshot("mistral", "mistral", text) == (None, [("get_time", "{}")])
    text = '[TOOL_CALLS][{"name": "get_weather", "arguments": "{\\"city\\": \\"x\\"}"}]'
    assert oneshot("mistral", "mistral", text) == (None, [("get_weather", '{"city": "x"}')])


def test_parallel_with_trailing_text() -> None:
    text = (
        '[TOOL_CALLS][{"name": "get_time", "arguments": {}}, '
        '{"name": "get_weather", "arguments": {"city": "Paris", "n": [1, {"a": null}]}}] done'
    )
    assert oneshot("mistral", "mistral", text) == (
        None,
        [("get_time", "{}"), ("get_weather", '{"city": "Paris", "n": [1, {"a": null}]}')],
    )


def test_tool_choice_none_returns_text() -> None:
    text = '[TOOL_CALLS][{"name": "get_time", "arguments": {}}]'
    assert oneshot("mistral", "mistral", text, TOOLS, "none") == (text, [])


def test_stream_raw_argument_text() -> None:
    text = (
        'Hi [TOOL_CALLS][{"name": "get_weather", "arguments": {"city":  "東京"}}, '
        '{"name": "get_time", "arguments": {}}]'
    )
    deltas = stream("mistral", "mistral", token_chunks(text, "mistral"))
    content, calls = joined(deltas)
    assert content == "Hi "
    # Arguments stream as the model wrote them (first chunk left-stripped).
    assert calls == [("get_weather", '{"city":  "東京"}'), ("get_time", "{}")]


def test_stream_cut_off_call() -> None:
    text = '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Pa'
    deltas = stream("mistral", "mistral", token_chunks(text, "mistral"))
    assert joined(deltas) == (None, [("get_weather", '{"city": "Pa')])


@pytest.mark.parametrize("vec", vectors("mistral"), ids=lambda v: v["source"].split("::")[-1])
def test_vllm_vectors(vec: dict) -> None:
    assert check_vector(vec) == []


def _chunks_of(text: str, per: int) -> list[tuple[str, list[int]]]:
    """`text`'s tokens in chunks of `per` tokens: (text, ids) each."""
    tokens = token_chunks(text, "mistral")
    return [
        ("".join(t for t, _ in tokens[i : i + per]), [n for _, ids in tokens[i : i + per] for n in ids])
        for i in range(0, len(tokens), per)
    ]


@pytest.mark.parametrize("per", [2, 3])
def test_pre_v11_colon_in_the_chunk_opening_the_arguments_is_not_argument_text(
    per: int,
) -> None:
    text = '[TOOL_CALLS]  [ {"name":"add" , "arguments" : {"a": 3, "b": 4} } ]'
    _, calls = joined(stream("mistral", "mistral", _chunks_of(text, per)))
    assert calls == [("add", '{"a": 3, "b": 4}')]


@pytest.mark.parametrize(
    ("pieces", "content", "calls"),
    [
        # inside the arguments: the text around it continues them
        (
            ['Hi[TOOL_CALLS][{"name": "get_weather", "arguments": {"', 'city": "Tok[TOOL_CALLS]yo"}}]'],
            "Hi",
            [("get_weather", '{"city": "Tokyo"}')],
        ),
        # ... and it goes out when the text after the marker breaks the JSON
        (
            ['[TOOL_CALLS][{"name": "get_weather", "arguments": {"city":', ' "Paris"[TOOL_CALLS][{"x'],
            None,
            [("get_weather", '{"city": "Paris"')],
        ),
        # after the list: content, the text before the marker too
        (
            ['Hi[TOOL_CALLS][{"name": "get_weather", "arguments": {}}]', " ok[TOOL_CALLS] more"],
            "Hi ok more",
            [("get_weather", "{}")],
        ),
    ],
)
def test_pre_v11_a_later_tool_calls_marker_in_a_chunk_reads_as_one_token_per_chunk(
    pieces: list[str], content: str | None, calls: list[tuple[str, str]]
) -> None:
    # vLLM 0.33.0 sends the chunk's text before a second `[TOOL_CALLS]` as content even
    # inside the JSON (and loses the chunk when the JSON then breaks); one token per chunk
    # the marker's delta adds nothing and the text around it continues the JSON (seed 37)
    chunks = [c for piece in pieces for c in _chunks_of(piece, 1000)]
    assert joined(stream("mistral", "mistral", chunks)) == (content, calls)
    assert joined(stream("mistral", "mistral", token_chunks("".join(pieces), "mistral"))) == (
        content,
        calls,
    )
