"""deepseek_v31: golden vLLM answers, vLLM's own test vectors, own cases."""

from __future__ import annotations

import pytest
from calls_support import check_vector, make, oneshot, run_stream, token_chunks, vectors

B, E = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
CB, CE, SEP = "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>"


def parser():
    return make("deepseek_v31", "deepseek")


@pytest.mark.parametrize("vec", vectors("deepseek_v31"), ids=lambda v: v["source"].split("::")[-1])
def test_vllm_vectors(vec: dict) -> None:
    assert check_vector("deepseek_v31", vec) == []


# Golden (vLLM 0.33.0, deepseek config).
def test_golden_parallel() -> None:
    text = f'{B}{CB}calculate{SEP}{{"expression": "sqrt(2) + 1/3"}}{CE}{CB}get_time{SEP}{{}}{CE}{E}'
    assert oneshot(parser(), text) == (
        [("calculate", '{"expression": "sqrt(2) + 1/3"}'), ("get_time", "{}")],
        None,
    )


def test_golden_malformed_arguments_kept_raw() -> None:
    assert oneshot(parser(), f"{B}{CB}get_time{SEP}{{{CE}{E}") == ([("get_time", "{")], None)


def test_golden_content_before() -> None:
    text = f"好的，我来查一下。\n{B}{CB}get_time{SEP}{{}}{CE}{E}"
    assert oneshot(parser(), text) == ([("get_time", "{}")], "好的，我来查一下。\n")


# Own cases.
def test_text_after_calls_dropped() -> None:
    assert oneshot(parser(), f"{B}{CB}f{SEP}{{}}{CE}{E}tail") == ([("f", "{}")], None)


def test_stream_two_calls_by_tokens() -> None:
    text = f'{B}{CB}f{SEP}{{"a": "x"}}{CE}{CB}g{SEP}{{"b": 2}}{CE}{E}'
    _, content, calls = run_stream(parser(), token_chunks(text, "deepseek"))
    assert calls == [("f", '{"a": "x"}'), ("g", '{"b": 2}')]
    assert content is None


def test_cut_off_stream() -> None:
    text = f'{B}{CB}f{SEP}{{"a": "xy'
    _, _, calls = run_stream(parser(), token_chunks(text, "deepseek"))
    assert calls == [("f", '{"a": "xy')]


def test_remaining_args_after_stream() -> None:
    p = parser()
    text = f'{B}{CB}f{SEP}{{"a": "x"}}'
    state = p.initial_state()
    for chunk, ids in token_chunks(text, "deepseek"):
        p.stream(state, chunk, ids)
    assert p.remaining_args(state) == ""


@pytest.mark.parametrize("per", [2, 3, 5, 7, 1000])
def test_closing_brace_and_content_survive_multi_token_chunks(per: int) -> None:
    text = f'normal text{B}{CB}f{SEP}{{"x":1}}{CE}{CB}g{SEP}{{}}{CE}{E}'
    _, content, calls = run_stream(parser(), token_chunks(text, "deepseek", per))
    assert calls == [("f", '{"x":1}'), ("g", "{}")]
    assert content == "normal text"


def test_arguments_and_call_end_in_one_chunk_flush_the_arguments() -> None:
    p = parser()
    state = p.initial_state()
    pieces = token_chunks(f'{B}{CB}f{SEP}{{"a": 1', "deepseek")
    tail = token_chunks(f'{B}{CB}f{SEP}{{"a": 1, "b": 2}}{CE}', "deepseek")[len(pieces) :]
    for chunk, ids in pieces:
        p.stream(state, chunk, ids)
    delta = p.stream(state, "".join(t for t, _ in tail), [i for _, ids in tail for i in ids])
    assert delta is not None and delta.tool_calls[0].arguments == ', "b": 2}'


@pytest.mark.parametrize("per", [1, 2, 3, 1000])
def test_stream_drops_text_after_and_between_calls(per: int) -> None:
    """Only the text before the calls section is content, streamed as one-shot reads it
    (tests/tool_parsers/test_deepseekv31_tool_parser.py::test_extract_tool_calls_with_multiple_tools)."""
    text = f'some prefix{B}{CB}f{SEP}{{"x":1}}{CE} between {CB}g{SEP}{{}}{CE}{E} some suffix'
    _, content, calls = run_stream(parser(), token_chunks(text, "deepseek", per))
    assert calls == [("f", '{"x":1}'), ("g", "{}")]
    assert content == "some prefix"
    assert oneshot(parser(), text) == ([("f", '{"x":1}'), ("g", "{}")], "some prefix")


@pytest.mark.parametrize("per", [1, 3, 1000])
@pytest.mark.parametrize(
    ("text", "content", "calls"),
    [
        # before any call: the held section text goes out as 0.33.0 streams it, marker removed
        (f'{B}x{CE}{CB}search{SEP}{{"query": "a"}}{CE}', "x", [("search", '{"query": "a"}')]),
        # after a call: the text between is dropped, as one-shot
        (
            f'{B}{CB}f{SEP}{{"x": 1}}{CE}x{CE}{CB}search{SEP}{{"query": "a"}}{CE}',
            None,
            [("f", '{"x": 1}'), ("search", '{"query": "a"}')],
        ),
    ],
)
def test_a_stray_call_end_does_not_turn_the_later_calls_into_text(
    per: int, text: str, content: str | None, calls: list[tuple[str, str]]
) -> None:
    # vLLM 0.33.0 counts the stray `<｜tool▁call▁end｜>` as closing a call, and reads the later
    # call as text (one token per chunk: its markup as content); one-shot reads the calls
    # (sweep seed 38)
    _, got_content, got_calls = run_stream(parser(), token_chunks(text, "deepseek", per))
    assert (got_content or None, got_calls) == (content, calls)
    assert oneshot(parser(), text)[0] == calls
