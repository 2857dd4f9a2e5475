"""deepseek_v3: golden vLLM answers, vLLM's own test vectors, own cases."""

from __future__ import annotations

import pytest
from calls_support import (
    check_vector,
    make,
    oneshot,
    run_stream,
    token_chunks,
    tokenizer,
    vectors,
)

B, E = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
CB, CE, SEP = "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>"


def call(name: str, args: str, kind: str = "function") -> str:
    return f"{CB}{kind}{SEP}{name}\n```json\n{args}\n```{CE}"


def parser():
    return make("deepseek_v3", "deepseek")


@pytest.mark.parametrize("vec", vectors("deepseek_v3"), ids=lambda v: v["source"].split("::")[-1])
def test_vllm_vectors(vec: dict) -> None:
    assert check_vector("deepseek_v3", vec) == []


# Golden (vLLM 0.33.0, deepseek-v3 config).
def test_golden_parallel() -> None:
    text = B + call("get_time", "{}") + call("get_time", "{}") + E
    assert oneshot(parser(), text) == ([("get_time", "{}"), ("get_time", "{}")], None)


def test_golden_stream() -> None:
    chunks = [
        (B, [1]),
        (CB, [2]),
        ("function", [3]),
        (SEP, [4]),
        ("get_weather\n```", [5, 6]),
        ("json", [7]),
        ('\n{"city": "', [8, 9]),
        ('São Paulo", "unit', [10, 11]),
        ('": "fahrenheit"}\n', [12, 13]),
    ]
    vocab = tokenizer("deepseek").get_vocab()
    chunks = [(t, [vocab[t]] if t in vocab else i) for t, i in chunks]
    deltas, content, calls = run_stream(parser(), chunks, finish=False)
    assert deltas[0] is not None and deltas[0].content == ""
    assert deltas[1:4] == [None, None, None]
    assert deltas[4] is not None and deltas[4].tool_calls[0].name == "get_weather"
    assert calls == [("get_weather", '{"city": "São Paulo", "unit": "fahrenheit"}')]


# Own cases.
def test_content_before_and_after() -> None:
    text = "Sure.\n" + B + call("f", '{"a": 1}') + E + " after"
    assert oneshot(parser(), text) == ([("f", '{"a": 1}')], "Sure.\n after")


def test_non_function_type_is_content() -> None:
    text = B + call("f", "{}", kind="other") + E
    assert oneshot(parser(), text) == ([], text)


def test_plain_text() -> None:
    assert oneshot(parser(), "plain 🧪") == ([], "plain 🧪")


def test_stream_by_tokens() -> None:
    text = "Hi " + B + call("f", '{"city": "東京"}') + E
    _, content, calls = run_stream(parser(), token_chunks(text, "deepseek"))
    assert content == "Hi " and calls == [("f", '{"city": "東京"}')]


@pytest.mark.parametrize("per", [2, 3, 5, 7, 1000])
def test_calls_and_text_around_them_survive_multi_token_chunks(per: int) -> None:
    text = "Hi " + B + call("f", '{"n": 42}') + call("g", "{}") + E + " after"
    _, content, calls = run_stream(parser(), token_chunks(text, "deepseek", per))
    assert calls == [("f", '{"n": 42}'), ("g", "{}")]
    assert content == "Hi  after"


def test_one_chunk_holding_the_whole_output_streams_the_call() -> None:
    text = B + call("f", '{"a": "x"}') + E
    deltas, _, calls = run_stream(parser(), token_chunks(text, "deepseek", 10_000))
    assert calls == [("f", '{"a": "x"}')]
    assert sum(d is not None and bool(d.tool_calls) for d in deltas) == 1


def test_stream_keeps_text_after_the_call_end_in_the_same_chunk() -> None:
    # vLLM 0.33.0 drops " after" when it shares a chunk with the call's end marker; one token
    # per chunk and one-shot keep it (docs/deviations.md, session 17 row).
    head = token_chunks(B + call("f", '{"a": 1}')[: -len(CE)], "deepseek")
    tail_ids = tokenizer("deepseek").encode(CE + E + " after", add_special_tokens=False)
    _, content, calls = run_stream(parser(), [*head, (CE + E + " after", tail_ids)])
    assert content == " after" and calls == [("f", '{"a": 1}')]
