"""Mistral v11 tool calls (`engines/mistral_v11.py` through the mistral tool parser).

A stub tokenizer stands for a v11 vocabulary (`[ARGS]` present) or a pre-v11 one (absent); the
real tokenizers are covered by tests/parsers/test_vllm_vectors_mistral.py and the mistral11
golden corpus.
"""

from __future__ import annotations

from typing import Any

import pytest

from tokenfront.parsers.base import ParseContext
from tokenfront.parsers.tools.mistral import MistralToolParser

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            },
        },
    },
]


class StubTokenizer:
    all_special_tokens = ["<s>", "</s>"]

    def __init__(self, v11: bool) -> None:
        self.vocab = {"<s>": 1, "</s>": 2, "[TOOL_CALLS]": 9}
        if v11:
            self.vocab["[ARGS]"] = 32

    def get_vocab(self) -> dict[str, int]:
        return self.vocab


V11, PRE_V11 = StubTokenizer(True), StubTokenizer(False)


def parser(tok: StubTokenizer, tool_choice: str = "auto") -> MistralToolParser:
    return MistralToolParser(tok, ParseContext(tools=TOOLS, tool_choice=tool_choice))


def one_shot(
    tok: StubTokenizer, text: str, **kw: Any
) -> tuple[bool, str | None, list[tuple[str, str]]]:
    info = parser(tok, **kw).extract_tool_calls(text)
    return info.tools_called, info.content, [(c.name, c.arguments) for c in info.tool_calls]


def streamed(
    tok: StubTokenizer, pieces: list[str], **kw: Any
) -> tuple[str | None, list[tuple[str, str]]]:
    p = parser(tok, **kw)
    state = p.initial_state()
    content = ""
    calls: dict[int, list[str]] = {}
    deltas = [p.stream(state, piece, [9] if "[TOOL_CALLS]" in piece else []) for piece in pieces]
    for delta in [*deltas, p.finish(state)]:
        if delta is None:
            continue
        content += delta.content or ""
        for tc in delta.tool_calls or []:
            slot = calls.setdefault(tc.index, ["", ""])
            if tc.id is not None:
                assert len(tc.id) == 9 and tc.id.isalnum()
            slot[0] += tc.name or ""
            slot[1] += tc.arguments or ""
    return content or None, [(n, a) for n, a in (calls[k] for k in sorted(calls))]


def chunkings(text: str) -> list[list[str]]:
    marker = "[TOOL_CALLS]"
    # whole; per character (markers kept whole, as one special token each); in threes
    parts: list[str] = []
    rest = text
    while rest:
        if rest.startswith(marker):
            parts.append(marker)
            rest = rest[len(marker) :]
        else:
            parts.append(rest[0])
            rest = rest[1:]
    threes = ["".join(parts[i : i + 3]) for i in range(0, len(parts), 3)]
    return [[text], parts, threes]


CALLS = [
    ('[TOOL_CALLS]get_weather{"city": "Paris"}', None, [("get_weather", '{"city": "Paris"}')]),
    (
        '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}',
        None,
        [("get_weather", '{"city": "Paris"}')],
    ),
    (
        'Sure.[TOOL_CALLS]get_weather{"city": "a {b} [c]"}[TOOL_CALLS]get_weather{"days": 2}',
        "Sure.",
        [("get_weather", '{"city": "a {b} [c]"}'), ("get_weather", '{"days": 2}')],
    ),
    ("hi{hi[TOOL_CALLS]get_weather{}", "hi{hi", [("get_weather", "{}")]),
]


@pytest.mark.parametrize("tok", [V11, PRE_V11], ids=["v11", "pre_v11"])
@pytest.mark.parametrize(("text", "content", "calls"), CALLS)
def test_calls_one_shot_and_any_chunking(
    tok: StubTokenizer, text: str, content: str | None, calls: list[tuple[str, str]]
) -> None:
    assert one_shot(tok, text) == (True, content, calls)
    for pieces in chunkings(text):
        assert streamed(tok, pieces) == (content, calls), pieces


def test_one_shot_keeps_first_json_value_and_types() -> None:
    text = '[TOOL_CALLS]get_weather{"city": "Paris", "days": "3"} trailing'
    assert one_shot(V11, text) == (True, None, [("get_weather", '{"city": "Paris", "days": 3}')])


def test_marker_split_across_deltas_v11() -> None:
    pieces = ["Ok", "[TOOL", "_CALLS]get_", "weather[AR", 'GS]{"city": "X"}']
    assert streamed(V11, pieces) == ("Ok", [("get_weather", '{"city": "X"}')])


@pytest.mark.parametrize("tok", [V11, PRE_V11], ids=["v11", "pre_v11"])
def test_bare_name_is_a_call_without_arguments(tok: StubTokenizer) -> None:
    # vLLM 0.33.0 and tests/parser/mistral/test_tool_calls.py::test_extract_tool_calls_v11_without_args_skipped
    assert one_shot(tok, "[TOOL_CALLS]toolname_no_args") == (
        True,
        None,
        [("toolname_no_args", "{}")],
    )
    # streamed, the end of the stream sends it (name, ""): the recorded goldens
    # tf-mistral-v11-vllm_test_bare_name-stream / tf-mistral-v11-cut_off_in_name-stream pin it


def test_pre_v11_prose_after_marker_stays_vllm_like() -> None:
    assert one_shot(PRE_V11, "[TOOL_CALLS] not json at all") == (False, "not json at all", [])
    assert one_shot(
        PRE_V11, '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "P"}}]'
    ) == (True, None, [("get_weather", '{"city": "P"}')])


def test_v11_tool_choice_none_keeps_only_text() -> None:
    text = 'Sure.[TOOL_CALLS]get_weather{"city": "Paris"}'
    assert one_shot(V11, text, tool_choice="none") == (False, "Sure.", [])
    assert streamed(V11, chunkings(text)[1], tool_choice="none") == ("Sure.", [])


TRAILING = [
    # gh#48975: text after a call's arguments JSON stays out of its arguments (and of the content)
    ('[TOOL_CALLS]get_weather{"city": "Paris"}Estimating...', [("get_weather", '{"city": "Paris"}')]),
    (
        '[TOOL_CALLS]get_weather[ARGS]{"city": {"a": [1, "}"]}}\nDone.',
        [("get_weather", '{"city": {"a": [1, "}"]}}')],
    ),
    ('[TOOL_CALLS]get_weather[ARGS]"Paris" and more', [("get_weather", '"Paris"')]),
    (
        '[TOOL_CALLS]get_weather{"city": "a"}}] x[TOOL_CALLS]get_weather{"days": 2} y',
        [("get_weather", '{"city": "a"}'), ("get_weather", '{"days": 2}')],
    ),
]


@pytest.mark.parametrize(("text", "calls"), TRAILING)
def test_v11_text_after_the_arguments_value_is_dropped(
    text: str, calls: list[tuple[str, str]]
) -> None:
    # tests/parser/mistral/test_tool_calls.py::test_extract_tool_calls[trailing_text_after_json]
    # (one-shot; vLLM 0.33.0 streamed the text into the arguments)
    assert one_shot(V11, text) == (True, None, calls)
    for pieces in chunkings(text):
        assert streamed(V11, pieces) == (None, calls), pieces


def test_v11_unfinished_arguments_still_stream_as_written() -> None:
    text = '[TOOL_CALLS]get_weather{"city": "Pa'
    for pieces in chunkings(text):
        assert streamed(V11, pieces) == (None, [("get_weather", '{"city": "Pa')]), pieces


PRE_V11_END = [
    # tests/tool_parsers/test_mistral_tool_parser.py::test_extract_tool_calls_pre_v11_regex_fallback
    (
        '[TOOL_CALLS]  junk [{"name": "get_weather", "arguments": {"days": 2}}] trail',
        None,
        [("get_weather", '{"days": 2}')],
    ),
    # ... ::test_extract_tool_calls_pre_v11_regex_fallback_fails
    ("[TOOL_CALLS] not json at all", "not json at all", []),
    ("Hi [TOOL_CALLS]Sorry, no.", "Hi Sorry, no.", []),
]


@pytest.mark.parametrize(("text", "content", "calls"), PRE_V11_END)
def test_pre_v11_stream_that_sent_nothing_ends_with_the_one_shot_answer(
    text: str, content: str | None, calls: list[tuple[str, str]]
) -> None:
    for pieces in chunkings(text):
        assert streamed(PRE_V11, pieces) == (content, calls), pieces


def test_pre_v11_stream_end_adds_nothing_after_streamed_calls() -> None:
    # trailing data after a streamed call list stays streamed content, as
    # test_extract_tool_calls_streaming_pre_v11_tokenizer[trailing_data_after_json] asserts
    text = '[TOOL_CALLS][{"name": "get_weather", "arguments": {"days": 2}}]\nextra'
    for pieces in chunkings(text):
        assert streamed(PRE_V11, pieces) == ("\nextra", [("get_weather", '{"days": 2}')]), pieces
    assert streamed(PRE_V11, ["[TOOL_CALLS] not json"], tool_choice="none") == (None, [])


@pytest.mark.parametrize(
    ("text", "content", "calls"),
    [
        # a bare name (whitespace after it held as a possible end) read as v11, as one-shot
        ("[TOOL_CALLS]toolname_no_args  ", None, [("toolname_no_args", "{}")]),
        ('[TOOL_CALLS]get_weather {"a": 1}', 'get_weather {"a": 1}', []),
        # a call list that breaks after a complete call: the call, in any chunking
        (
            'Hi [TOOL_CALLS][{"name": "get_weather", "arguments": {"days": 1}}, {oops}] x',
            "Hi ",
            [("get_weather", '{"days": 1}')],
        ),
    ],
)
def test_pre_v11_stream_is_split_invariant(
    text: str, content: str | None, calls: list[tuple[str, str]]
) -> None:
    for pieces in chunkings(text):
        assert streamed(PRE_V11, pieces) == (content, calls), pieces


@pytest.mark.parametrize(
    ("pieces", "content"),
    [
        # the text before `[TOOL_CALLS]` is lost with the chunk's JSON (vLLM 0.33.0, recorded:
        # tests/golden/vllm-mechanics.jsonl mech-mistral-guided-dead-then-marker-json)
        (["Let", ' me check.\n[TOOL_CALLS][{"name": "get_weather", "arguments": {}}]'], None),
        # ... unless the chunk holds no JSON after the marker (mech-…-marker-alone)
        (["Let", " me check.\n[TOOL_CALLS]", '[{"name": "get_weather", "arguments": {}}]'], " me check.\n"),
    ],
)
def test_pre_v11_guided_stream_whose_json_broke_earlier_sends_nothing_more(
    pieces: list[str], content: str | None
) -> None:
    # tool_choice required reads the output as a bare JSON list from its first text: "Let"
    # breaks it, and every later chunk that reaches the JSON is lost, as in vLLM 0.33.0
    assert streamed(PRE_V11, pieces, tool_choice="required") == (content, [])
