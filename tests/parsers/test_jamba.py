"""jamba: golden vLLM answers and own cases."""

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


@pytest.mark.parametrize("case", golden_cases("jamba"), ids=lambda c: c["id"])
def test_golden(case: dict) -> None:
    check_golden(case)


def test_parallel_calls_with_text_before() -> None:
    text = (
        'One moment. <tool_calls>[{"name": "get_time", "arguments": {}}, '
        '{"name": "get_weather", "arguments": {"city": "Zoë", "x": {"y": [1]}}}]</tool_calls>'
    )
    assert oneshot("jamba", MODEL, text) == (
        "One moment. ",
        [("get_time", "{}"), ("get_weather", '{"city": "Zoë", "x": {"y": [1]}}')],
    )


def test_malformed_and_cut_off_are_content() -> None:
    bad = '<tool_calls>[{"name": "get_time", "arguments": {}]</tool_calls>'
    assert oneshot("jamba", MODEL, bad) == (bad, [])
    cut = '<tool_calls>[{"name": "get_time", "arguments": {}}]'
    assert oneshot("jamba", MODEL, cut) == (cut, [])


def test_stream_two_calls() -> None:
    text = (
        '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}, '
        '{"name": "get_time", "arguments": {"tz": "UTC"}}]</tool_calls>'
    )
    content, calls = joined(stream("jamba", MODEL, token_chunks(text, MODEL)))
    assert content is None
    assert [name for name, _ in calls] == ["get_weather", "get_time"]
    assert calls[0][1] == '{"city": "Paris"}'


@pytest.mark.parametrize("vec", vectors("jamba"), ids=lambda v: v["source"].split("::")[-1])
def test_vllm_vectors(vec: dict) -> None:
    assert check_vector(vec) == []


WEATHER = (
    ' <tool_calls>[\n    {"name": "get_current_weather", "arguments": '
    '{"city": "Dallas", "state": "TX", "unit": "fahrenheit"}}\n]</tool_calls>'
)


@pytest.mark.parametrize("per", [2, 3, 5, 7, 1000])
def test_one_chunk_arguments_and_text_before_the_calls_are_not_corrupted(per: int) -> None:
    from calls_support import token_chunks as chunks_of

    content, calls = joined(stream("jamba", MODEL, chunks_of(WEATHER, MODEL, per)))
    assert content == " "
    assert calls == [
        ("get_current_weather", '{"city": "Dallas", "state": "TX", "unit": "fahrenheit"}')
    ]


def test_one_token_chunks_stream_as_vllm() -> None:
    deltas = stream("jamba", MODEL, token_chunks(WEATHER, MODEL))
    assert joined(deltas)[1][0][1] == '{"city": "Dallas", "state": "TX", "unit": "fahrenheit"}'
    assert sum(1 for d in deltas if d.get("tool_calls")) > 5  # argument text as it grows


def test_a_long_plain_chunk_is_not_stepped_token_by_token(monkeypatch: pytest.MonkeyPatch) -> None:
    # before any `<tool_calls>` every piece is content, cut or whole: stepping the chunk token
    # by token (the shadow run) was quadratic in it (40,000 tokens: 8 s)
    from calls_support import token_chunks as chunks_of

    from tokenfront.parsers.tools import jamba

    steps = [0]
    original = jamba.JambaToolParser.step

    def counted(self: jamba.JambaToolParser, *args: object) -> object:
        steps[0] += 1
        return original(self, *args)

    monkeypatch.setattr(jamba.JambaToolParser, "step", counted)
    prose = "Let me think about this for a while. " * 200
    text = prose + WEATHER
    chunks = chunks_of(prose, MODEL, 10_000) + token_chunks(WEATHER, MODEL)
    deltas = stream("jamba", MODEL, chunks)
    assert steps[0] <= 2 * len(token_chunks(WEATHER, MODEL))  # the calls' tokens only
    assert joined(deltas) == joined(stream("jamba", MODEL, token_chunks(text, MODEL)))
    assert joined(deltas)[0] == prose + " "


def test_split_chunks_append_no_arguments_a_one_token_stream_would_not() -> None:
    # A call without an `arguments` key: one token per chunk vLLM 0.33.0 sends the name only
    # (the stream's last delta carries no call, so no end-of-stream arguments); in several-
    # token chunks the catch-up to that shadow did append `{}` (sweep seed 36).
    from calls_support import tokenizer as tok_of

    tok = tok_of(MODEL)
    pieces = ['<tool_calls>[{"name": "get_weather', '", "x": 1}]', "</tool_calls>", ""]
    chunks = [(p, tok.encode(p, add_special_tokens=False)) for p in pieces]
    chunks[-1] = ("", [tok.convert_tokens_to_ids("<|im_end|>")])
    assert joined(stream("jamba", MODEL, chunks))[1] == [("get_weather", "")]
    assert joined(stream("jamba", MODEL, token_chunks("".join(pieces), MODEL)))[1] == [
        ("get_weather", "")
    ]


def test_a_client_following_the_shadow_gets_no_end_of_stream_arguments_it_would_not() -> None:
    # A list closed without `</tool_calls>`, cut into several-token chunks: the whole-chunk
    # run leaves the shadow's track, and the client then gets what one token per chunk gets
    # (vLLM 0.33.0: no closing `"}`, the last token's delta carries no call); the
    # end-of-stream arguments used to be appended to the final catch-up delta (seed 37).
    from calls_support import tokenizer as tok_of

    tok = tok_of(MODEL)
    pieces = [
        '<tool_calls>[{"name": "get_weather",',
        ' "arguments":',
        ' {"',
        'city": "Paris", "unit":',
        ' "',
        "c",
        'elsius"}}]<\n',
    ]
    chunks = [(p, tok.encode(p, add_special_tokens=False)) for p in pieces]
    one_token = joined(stream("jamba", MODEL, token_chunks("".join(pieces), MODEL)))[1]
    assert one_token == [("get_weather", '{"city": "Paris", "unit": "celsius')]
    assert joined(stream("jamba", MODEL, chunks))[1] == one_token
