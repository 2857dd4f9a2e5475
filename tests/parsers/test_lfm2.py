"""lfm2: golden vLLM answers, vLLM's own test vectors, own cases."""

from __future__ import annotations

import pytest
from calls_support import check_vector, make, oneshot, run_stream, token_chunks, tool, vectors

MODEL = "synthetic-multi"


def parser(**kw):
    return make("lfm2", MODEL, [tool("get_time"), tool("get_weather")], **kw)


@pytest.mark.parametrize("vec", vectors("lfm2"), ids=lambda v: v["source"].split("::")[-1])
def test_vllm_vectors(vec: dict) -> None:
    assert check_vector("lfm2", vec) == []


# Golden (vLLM 0.33.0 derender answers for the syn-lfm2 config).
def test_golden_parallel() -> None:
    text = (
        '<|tool_call_start|>[get_weather(city="東京", unit="celsius"), get_time()]<|tool_call_end|>'
    )
    assert oneshot(parser(), text) == (
        [("get_weather", '{"city": "東京", "unit": "celsius"}'), ("get_time", "{}")],
        None,
    )


def test_golden_content_then_tool() -> None:
    text = "Let me check that for you.\n<|tool_call_start|>[get_time()]<|tool_call_end|>"
    assert oneshot(parser(), text) == ([("get_time", "{}")], "Let me check that for you.")


def test_golden_malformed_is_content() -> None:
    text = '<|tool_call_start|>[calculate({"expression]<|tool_call_end|>'
    assert oneshot(parser(), text) == ([], text)


def test_golden_stream_tail_is_empty_content() -> None:
    chunks = [
        ("<|tool_call_start|>", [1]),
        ("[", [2]),
        ("get", [3]),
        ("_weather", [4]),
        ("(city", [5]),
        ('="', [6]),
        ("S", [7]),
        ("ão", [8]),
        (" Paulo", [9]),
        ('",', [10]),
        (" unit", [11]),
        ('="', [12]),
        ("f", [13]),
        ("ahrenheit", [14]),
        ('")]', [15]),
        ("<|tool_call_end|>", [16]),
    ]
    deltas, content, calls = run_stream(parser(), chunks)
    assert deltas[:5] == [None] * 5
    assert deltas[5] is not None and deltas[5].tool_calls[0].arguments == '{"city": "'
    assert deltas[9] is None and deltas[15] is not None and deltas[15].content == ""
    assert calls == [("get_weather", '{"city": "São Paulo", "unit": "fahrenheit"}')]


# Own cases.
def test_text_after_block_and_echo() -> None:
    text = "<|tool_call_start|>[get_time()]<|tool_call_end|>[get_time()]<|tool_call_end|> Done."
    assert oneshot(parser(), text) == ([("get_time", "{}")], "Done.")


def test_repairs() -> None:
    text = "<|tool_call_start|>[f(month=07, from=1, cmd='a\nb')]<|tool_call_end|>"
    assert oneshot(parser(), text) == ([("f", '{"month": 7, "from": 1, "cmd": "a\\nb"}')], None)


def test_cut_off() -> None:
    text = 'Hi <|tool_call_start|>[get_weather(city="Par'
    assert oneshot(parser(), text) == ([], text)
    _, content, calls = run_stream(parser(), token_chunks(text, MODEL))
    assert content == "Hi " and calls == [("get_weather", '{"city": "Par')]


def test_special_tokens_kept_only_with_tools() -> None:
    assert parser().wants_special_tokens()
    assert not make("lfm2", MODEL, None).wants_special_tokens()
    assert not parser(tool_choice="none").wants_special_tokens()
