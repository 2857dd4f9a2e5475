"""pythonic: golden vLLM answers, vLLM's own test vectors, own cases."""

from __future__ import annotations

import json

import pytest
from calls_support import check_vector, make, oneshot, run_stream, token_chunks, vectors

from tokenfront.parsers.engines.python_calls import close_partial, looks_like_call_list


def parser():
    return make("pythonic", "llama3")


@pytest.mark.parametrize("vec", vectors("pythonic"), ids=lambda v: v["source"].split("::")[-1])
def test_vllm_vectors(vec: dict) -> None:
    assert check_vector("pythonic", vec) == []


# Golden (vLLM 0.33.0 derender answers for the llama3-pythonic config).
def test_golden_one_call() -> None:
    assert oneshot(parser(), '[calculate(expression="17 * 23")]') == (
        [("calculate", '{"expression": "17 * 23"}')],
        None,
    )


def test_golden_text_before_list_is_content() -> None:
    text = 'Let me check that for you.\n[calculate(expression="sqrt(2) + 1/3")]'
    assert oneshot(parser(), text) == ([], text)


def test_golden_malformed_is_content() -> None:
    text = '[book_flight({"origin": "CDG", "destination": "NRT", "passengers": [{"name": "Z]'
    assert oneshot(parser(), text) == ([], text)


def test_golden_nested_and_unicode() -> None:
    text = (
        '[book_flight(origin="CDG", destination="NRT", passengers=[{"name": "Zoë", "age": 41}], '
        'options={"refundable": False, "class": None})]'
    )
    calls, content = oneshot(parser(), text)
    assert content is None
    assert calls == [
        (
            "book_flight",
            '{"origin": "CDG", "destination": "NRT", "passengers": [{"name": "Zoë", "age": 41}], '
            '"options": {"refundable": false, "class": null}}',
        )
    ]


def test_golden_stream_deltas() -> None:
    deltas, content, calls = run_stream(
        parser(), [('[get_weather(city="', [1]), ("Paris", [2]), ('")]', [3])]
    )
    assert deltas[0] is not None and deltas[0].tool_calls[0].name == "get_weather"
    assert [d.tool_calls[0].arguments for d in deltas[:3] if d] == ['{"city": "', "Paris", '"}']
    assert calls == [("get_weather", '{"city": "Paris"}')] and content is None


# Own cases.
def test_plain_text_and_parallel_calls() -> None:
    assert oneshot(parser(), "Hello there") == ([], "Hello there")
    calls, _ = oneshot(parser(), "[get_time(), get_time()]")
    assert calls == [("get_time", "{}"), ("get_time", "{}")]


def test_literal_kinds() -> None:
    calls, _ = oneshot(parser(), "[f(a=-1, b=(1, 2), c={'x'}, d=true, e=null, g=f'hi', h=+2.5)]")
    assert json.loads(calls[0][1]) == {
        "a": -1,
        "b": [1, 2],
        "c": ["x"],
        "d": True,
        "e": None,
        "g": "hi",
        "h": 2.5,
    }


def test_non_literal_argument_is_content() -> None:
    text = "[f(a=os.system('x'))]"
    assert oneshot(parser(), text) == ([], text)


def test_cut_off_call_is_content_oneshot_but_streams_partially() -> None:
    text = '[get_weather(city="Par'
    assert oneshot(parser(), text) == ([], text)
    _, content, calls = run_stream(parser(), token_chunks(text, "llama3"))
    assert content is None and calls == [("get_weather", '{"city": "Par')]


def test_stream_parallel_matches_oneshot() -> None:
    text = '[get_weather(city="東京", unit="celsius"), get_time()]'
    _, content, calls = run_stream(parser(), token_chunks(text, "llama3"))
    assert content is None
    assert calls == oneshot(parser(), text)[0]


def test_call_list_shape() -> None:
    assert looks_like_call_list("[a(), b(x=1)]")
    assert looks_like_call_list("[a()]trailing")
    assert not looks_like_call_list("[a(1)]")
    assert not looks_like_call_list("[a() , b()]")
    assert not looks_like_call_list("x[a()]")
    assert looks_like_call_list("[a(x=" + "y" * 100_000 + ")]")


def test_close_partial() -> None:
    assert close_partial('[f(a="x') == ('[f(a="x")]', '")]')
    assert close_partial("[f(a=") is None
    assert close_partial("[f(a") is None


def test_remaining_args() -> None:
    p = parser()
    state = p.initial_state()
    p.stream(state, "[get_time()", [1])
    assert p.remaining_args(state) == ""
    fresh = p.initial_state()
    assert p.remaining_args(fresh) == ""


def test_a_closed_list_followed_by_text_is_content() -> None:
    # vLLM 0.33.0 (recorded, llama3-pythonic, finish_reason length keeps the eos text): the
    # whole output does not parse, so it is content; no sibling is salvaged from it.
    text = "[get_weather(city='Tokyo', days=3), search(query='best ramen', limit=5)]<|end_of_text|>"
    assert oneshot(make("pythonic", "llama3"), text) == ([], text)
