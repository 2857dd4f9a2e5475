"""internlm: golden vLLM answers and own cases."""

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
START = "<|action_start|><|plugin|>"


# Deliberate deviations from vLLM 0.33.0 (docs/deviations.md, tests/golden/deviations.json).
DEVIATIONS = {
    "pub-syn-internlm-derender-chat-004",
    "pub-syn-internlm-derender-chat-005",
    "pub-syn-internlm-stream-001",
}


@pytest.mark.parametrize("case", golden_cases("internlm"), ids=lambda c: c["id"])
def test_golden(case: dict) -> None:
    if case["id"] in DEVIATIONS:
        pytest.skip("deliberate deviation from vLLM 0.33.0")
    check_golden(case)


def test_call_with_text_before() -> None:
    text = f'Checking.\n{START}\n{{"name": "get_weather", "arguments": {{"city": "東京"}}}}<|action_end|>'
    assert oneshot("internlm", MODEL, text) == (
        "Checking.\n", [("get_weather", '{"city": "東京"}')]
    )


def test_no_parameters_means_empty_object() -> None:
    text = f'{START}{{"name": "get_time"}}<|action_end|>'
    assert oneshot("internlm", MODEL, text) == (None, [("get_time", "{}")])


def test_malformed_json_is_no_call() -> None:
    # vLLM 0.33.0 answers 400; its test_malformed_input asserts no error (deviation).
    text = f'{START}{{"name": "get_time", "parameters": {{}}<|action_end|>'
    assert oneshot("internlm", MODEL, text) == (text, [])


def test_stream_one_call() -> None:
    text = f'{START}\n{{"name": "get_weather", "parameters": {{"city": "Zoë", "unit": "c"}}}}<|action_end|>'
    content, calls = joined(stream("internlm", MODEL, token_chunks(text, MODEL)))
    assert content is None
    assert calls == [("get_weather", '{"city": "Zoë", "unit": "c"}')]


def test_stream_plain() -> None:
    assert joined(stream("internlm", MODEL, token_chunks("1, 2 and 3.", MODEL)))[0] == "1, 2 and 3."


def test_undeclared_call_in_one_chunk_keeps_the_text_before_it_as_content() -> None:
    # as one-shot (test_internlm2_tool_parser.py::test_extract_unknown_tool_name_not_emitted);
    # seed 43's damaged-syn-internlm-5 lost the text before the marker
    text = f'Let me check.\n{START}\n{{"name": "get_we,ather", "parameters": {{"days": 3}}}}<|action_end|>'
    ids = [i for _, chunk in token_chunks(text, MODEL) for i in chunk]
    assert joined(stream("internlm", MODEL, [(text, ids)])) == (text, [])
    assert joined(stream("internlm", MODEL, token_chunks(text, MODEL))) == (text, [])


@pytest.mark.parametrize("vec", vectors("internlm"), ids=lambda v: v["source"].split("::")[-1])
def test_vllm_vectors(vec: dict) -> None:
    assert check_vector(vec) == []
