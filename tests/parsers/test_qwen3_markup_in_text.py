"""Tool markup inside text for the qwen3 grammar: parameter values, fenced examples, held ends.

Unit tests of `engines/param_walk.py` and `engines/fences.py`, plus whole-parser cases beyond
vLLM's own vectors (tests/parsers/test_vllm_vectors_qwen3.py): one-shot and streamed output
must agree, and the streaming state stays plain JSON.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from vllm_vectors_run import needs_models, one_shot, streamed

from tokenfront.parsers.engines.fences import feed_fences, in_fence, new_fence_state
from tokenfront.parsers.engines.param_walk import CallMarkup, NestedParamCodec, walk_params

NAMES = frozenset({"path", "content"})


def _values(body: str, names: frozenset[str] | None = NAMES, final: bool = True) -> dict[str, Any]:
    return json.loads(NestedParamCodec().convert(body, not final, names))


def test_nested_literal_parameter_pairs_stay_in_the_value() -> None:
    body = (
        "\n<parameter=path>\nf.py\n</parameter>\n<parameter=content>\ndoc = '''\n"
        "<parameter=path>\nliteral\n</parameter>\n'''\n</parameter>\n"
    )
    assert _values(body) == {
        "path": "f.py",
        "content": "doc = '''\n<parameter=path>\nliteral\n</parameter>\n'''",
    }


def test_close_followed_by_unknown_parameter_is_text() -> None:
    body = "<parameter=content>\na\n</parameter>\n<parameter=other>\nb\n</parameter>\nc\n</parameter>\n"
    assert _values(body) == {"content": "a\n</parameter>\n<parameter=other>\nb\n</parameter>\nc"}
    # Without a schema every name is a parameter.
    assert _values(body, None) == {"content": "a", "other": "b\n</parameter>\nc"}


def test_parameter_outside_the_schema_is_a_parameter_when_no_later_close_ends_the_value() -> None:
    # vLLM 0.33.0 reads both parameters; a later `</parameter>` would have made it text (above)
    body = "<parameter=path>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n"
    assert _values(body) == {"path": "Paris", "days": "3"}
    # ... also when only a missing close tag (an unseen schema parameter) would end it
    body += "<parameter=content>\nx\n</parameter>\n"
    assert _values(body) == {"path": "Paris", "days": "3", "content": "x"}


def test_stream_holds_a_value_followed_by_a_parameter_outside_the_schema() -> None:
    body = "<parameter=path>\nParis\n</parameter>\n<parameter=days>\n3"
    walk = walk_params(body, NAMES, final=False)
    assert walk.tail == "stop"
    assert _values(body, final=False) == {"path": "Paris"}


def test_missing_close_ends_at_an_unseen_schema_parameter() -> None:
    body = "<parameter=path>\nx\n<parameter=content>\ny\n</parameter>\n"
    assert _values(body) == {"path": "x", "content": "y"}


def test_an_opener_within_a_line_ends_a_value_only_for_a_fresh_schema_parameter() -> None:
    body = "<parameter=path>\nx <parameter=path> y <parameter=zz> z<parameter=content>\nc\n"
    assert _values(body + "</parameter>\n") == {
        "path": "x <parameter=path> y <parameter=zz> z",
        "content": "c",
    }
    # cut off inside such an opener's name: undecided only while it may still name one
    assert walk_params("<parameter=path>\nx <parameter=con", NAMES, final=False).tail == "stop"
    assert walk_params("<parameter=path>\nx <parameter=zz", NAMES, final=False).tail == "open"


def test_close_followed_by_text_is_text() -> None:
    assert _values('<parameter=content>\n"</parameter>",\n</parameter>\n') == {
        "content": '"</parameter>",'
    }


def test_partial_walk_stops_at_an_undecided_close() -> None:
    walk = walk_params("<parameter=content>\nabc\n</parameter>\n", NAMES, final=False)
    assert walk.tail == "stop"
    assert _values("<parameter=content>\nabc\n</parameter>\n", final=False) == {"content": "abc"}
    # The same close followed by text is held: text only if a later close ends the value.
    grown = "<parameter=content>\nabc\n</parameter>\nmore"
    assert walk_params(grown, NAMES, final=False).tail == "stop"
    assert _values(grown, final=False) == {"content": "abc"}
    decided = _values(grown + "\n</parameter>\n<parameter=path>", final=False)
    assert decided["content"] == "abc\n</parameter>\nmore"


def test_close_followed_by_text_ends_the_value_when_no_later_close_does() -> None:
    # as vLLM 0.33.0: the text after it is dropped, the value keeps what came before
    assert _values("<parameter=content>\nParis\n</parameter>stray text\n") == {"content": "Paris"}
    body = "<parameter=content>\nParis\n</parameter>\nstray\n<parameter=path>\nf.py\n</parameter>\n"
    assert _values(body) == {"content": "Paris", "path": "f.py"}


def test_unclosed_value_is_dropped_from_a_complete_body() -> None:
    assert _values("<parameter=path>\nx\n", final=True) == {}
    assert _values("<parameter=path>\nx\n", final=False) == {"path": "x"}


SEED = CallMarkup("<seed:tool_call>", "</seed:tool_call>")


def test_the_walk_reads_the_call_markup_it_is_given() -> None:
    body = "<parameter=content>\nx\n</seed:tool_call>\n"
    assert walk_params(body, NAMES, final=False, markup=SEED).closed_call
    assert not walk_params(body, NAMES, final=False).closed_call
    # a value closed before the wrapper's closer ends there
    body = "<parameter=content>\nx\n</parameter>\n</seed:tool_call>"
    assert walk_params(body, NAMES, final=False, markup=SEED).tail == "none"
    assert walk_params(body, NAMES, final=False).tail == "stop"


@pytest.mark.parametrize(
    ("value", "closed"),
    [
        ("Paris\n</tool_call>\n", True),
        ("Paris\n</function>\nfunctools", True),
        ("<tool_call>\n<function=f>\n</function>\n</tool_call>\n", False),
        ("<function=f>\n</function>\n</tool_call>\n", True),
        ("Paris", False),
    ],
)
def test_a_call_closer_before_its_opener_in_an_open_value(value: str, closed: bool) -> None:
    body = "<parameter=content>\n" + value
    assert walk_params(body, NAMES, final=False).closed_call is closed
    # the same read in pieces: the first offsets resume with the value
    for cut in range(len(body) + 1):
        walk_params(body[:cut], NAMES, final=False)
    assert walk_params(body, NAMES, final=False).closed_call is closed


def _fence(text: str) -> bool:
    state = new_fence_state()
    feed_fences(state, text)
    json.dumps(state)
    return in_fence(state)


@pytest.mark.parametrize(
    ("text", "open_"),
    [
        ("```xml\n", True),
        ("   ~~~\n", True),
        ("    ```\n", False),  # indented code, not a fence
        ("inline ```code``` x\n", False),
        ("```a`b\n", False),  # backtick info string with a backtick
        ("```xml\n~~~\n", True),  # other character does not close
        ("````\n```\n", True),  # shorter run does not close
        ("```\n````\n", False),  # longer run closes
        ("```\ncode\n``` trailing\n", True),  # trailing text does not close
        ("```\ncode\n```  \n", False),
        ("```", False),  # the opening line is not complete yet
    ],
)
def test_fence_rules(text: str, open_: bool) -> None:
    assert _fence(text) is open_
    # Fed in pieces, the answer is the same.
    state = new_fence_state()
    for ch in text:
        feed_fences(state, ch)
    assert in_fence(state) is open_


TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
            },
        },
    }
]


def _vec(text: str) -> dict[str, Any]:
    return {
        "parser": "qwen3_coder",
        "source": "markup-in-text",
        "model_output": text,
        "tools": TOOLS,
        "request": {},
        "expected": {},
    }


@needs_models
@pytest.mark.parametrize(
    ("text", "calls"),
    [
        # A `</function>` in a value without nested markup, followed by text: value text.
        (
            '<tool_call>\n<function=get_weather>\n<parameter=city>\nx = "</function>"\n'
            "</parameter>\n</function>\n</tool_call>",
            [("get_weather", {"city": 'x = "</function>"'})],
        ),
        # ... followed by `</tool_call>`: the call ends there (the value lacks its close).
        (
            "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</function>\n</tool_call>"
            "<tool_call>\n<function=get_weather>\n<parameter=city>\nRome\n</parameter>\n"
            "</function>\n</tool_call>",
            [("get_weather", None), ("get_weather", {"city": "Rome"})],
        ),
        # A call opener after a value's close still starts the next call.
        (
            "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
            "<function=get_weather>\n<parameter=city>\nRome\n</parameter>\n</function>\n</tool_call>",
            [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Rome"})],
        ),
        # A `</parameter>` followed by text that no later `</parameter>` makes value text:
        # it ends the value, the stray text is dropped (vLLM 0.33.0's answer, served).
        (
            "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>stray text\n"
            "</function>\n</tool_call>",
            [("get_weather", {"city": "Paris"})],
        ),
        (
            "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\nstray <b>x</b>\n"
            "<parameter=unit>\nC\n</parameter>\n</function>\n</tool_call>",
            [("get_weather", {"city": "Paris", "unit": "C"})],
        ),
        # ... also when the call's `</function>` is misspelled: the value ends at its close,
        # and a `<function=` after it opens the next call (vLLM 0.33.0's answers, served).
        (
            "<tool_call>\n<function=get_weather>\n<parameter=city>\nTokyo\n</parameter>\n"
            "<parameter=unit>\nC\n</parameter>\n</functon>\n</tool_call>",
            [("get_weather", {"city": "Tokyo", "unit": "C"})],
        ),
        (
            "<tool_call>\n<function=get_weather>\n<parameter=city>\nTokyo\n</parameter>\n"
            "</fun{ction>\n</tool_call>\n<tool_call>\n<function=get_weather>\n<parameter=city>\n"
            "Rome\n</parameter>\n</function>\n</tool_call>",
            [("get_weather", {"city": "Tokyo"}), ("get_weather", {"city": "Rome"})],
        ),
        # A misspelled opener line naming a schema parameter not given yet ends the value
        # before it; the misspelled parameter is lost (vLLM 0.33.0's answers, served).
        *(
            (
                "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
                f"{opener}\nC\n</parameter>\n</function>\n</tool_call>",
                [("get_weather", {"city": "Paris"})],
            )
            for opener in (
                "<parmeter=unit>",
                "ameter=unit>",
                "<,parameter=unit>",
                "<paramete\nr=unit>",
                "<p<arameter=unit>",
                "<parameteunit>",
            )
        ),
        # ... and a stray character before a whole opener: that parameter is read.
        (
            "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
            "}<parameter=unit>\nC\n</parameter>\n</function>\n</tool_call>",
            [("get_weather", {"city": "Paris", "unit": "C"})],
        ),
        # Whitespace before a parameter's name is dropped, after it kept (as vLLM 0.33.0).
        (
            "<tool_call>\n<function=get_weather>\n<parameter=\ncity>\nParis\n</parameter>\n"
            "<parameter= unit >\nC\n</parameter>\n</function>\n</tool_call>",
            [("get_weather", {"city": "Paris", "unit ": "C"})],
        ),
        # Missing `</parameter>` before the next schema parameter.
        (
            "<tool_call>\n<function=get_weather>\n<parameter=city>Dallas\n<parameter=unit>\nC\n"
            "</parameter>\n</function>\n</tool_call>",
            [("get_weather", {"city": "Dallas", "unit": "C"})],
        ),
        # ... or a damaged close glued to it (vLLM 0.33.0's answer, served).
        (
            "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</paramete"
            "<parameter=unit>\ncelsius\n</parameter>\n</function>\n</tool_call>",
            [("get_weather", {"city": "Paris\n</paramete", "unit": "celsius"})],
        ),
    ],
)
def test_one_shot_and_stream_agree(text: str, calls: list[tuple[str, Any]]) -> None:
    vec = _vec(text)
    for mode in (one_shot, streamed):
        got = mode(vec)[-1]
        assert [name for name, _ in got] == [name for name, _ in calls]
        for (_, raw), (_, want) in zip(got, calls, strict=True):
            if want is not None:
                assert json.loads(raw or "") == want


_NEXT_CALL = "<function=get_weather>\n<parameter=city>Rome</parameter>\n</function>\n</tool_call>"


@needs_models
@pytest.mark.parametrize(
    ("text", "once", "stream"),
    [
        # A value that lost its `</parameter>`, then the call's `</tool_call>` and the next call:
        # the value is dropped one-shot and streamed as far as the next `<function=`.
        (
            "<tool_call>\n<function=get_weather>\n<parameter=city>Tokyo</parameter>\n"
            f"<parameter=unit>celsius\n</tool_call>\n<tool_call>\n{_NEXT_CALL}",
            '{"city": "Tokyo"}',
            '{"city": "Tokyo", "unit": "celsius\\n</tool_call>\\n<tool_call>',
        ),
        (
            "<tool_call>\n<function=get_weather>\n<parameter=city>Tokyo</parameter>\n"
            f"<parameter=unit>C</paramete/function>\n</tool_call>\n<tool_call>\n{_NEXT_CALL}",
            '{"city": "Tokyo"}',
            '{"city": "Tokyo", "unit": "C</paramete/function>\\n</tool_call>\\n<tool_call>',
        ),
        (
            f"<tool_call>\n<function=get_weather>\n<parameter=city>Tokyo\n</tool_call>\n{_NEXT_CALL}",
            "{}",
            '{"city": "Tokyo\\n</tool_call>',
        ),
    ],
)
def test_call_closer_in_an_unended_value_lets_the_next_call_open(
    text: str, once: str, stream: str
) -> None:
    # vLLM 0.33.0's served answers; before, the next call stayed text of the unended value
    rome = ("get_weather", '{"city": "Rome"}')
    assert one_shot(_vec(text))[-1] == [("get_weather", once), rome]
    assert streamed(_vec(text))[-1] == [("get_weather", stream), rome]


@needs_models
@pytest.mark.parametrize("between", ["functools", "\nSome words here.\n"])
def test_function_end_then_text_in_an_unended_value_lets_the_next_call_open(between: str) -> None:
    # vLLM 0.33.0 ends the call at the `</function>` (one-shot: the unended value dropped, the
    # text after it too; streamed: the value as far as the `</function>`). The stream holds
    # the `</function>` and the text until the next `<function=` shows the call was over.
    text = (
        f"<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</function>{between}"
        f"<tool_call>\n{_NEXT_CALL}"
    )
    rome = ("get_weather", '{"city": "Rome"}')
    assert one_shot(_vec(text))[-1] == [("get_weather", "{}"), rome]
    for chunking in ("1", "3", "all"):
        assert streamed(_vec(text), chunking)[-1] == [("get_weather", '{"city": "Paris'), rome]


_WRAPPERS = {"qwen3_coder": "tool_call", "seed_oss": "seed:tool_call"}
_SEARCH_AND_WRITE = [
    *TOOLS,
    {
        "type": "function",
        "function": {
            "name": "search",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "write_file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            },
        },
    },
]


@needs_models
@pytest.mark.parametrize("parser", sorted(_WRAPPERS))
@pytest.mark.parametrize(
    ("fresh", "second"),
    [
        # the fresh call's first parameter repeats the cut one; the next ends the value
        (
            "<function=get_weather>\n<parameter=city>\nLondon\n</parameter>\n"
            "<parameter=unit>\ncelsius\n</parameter>\n</function>\n</{w}>",
            ("get_weather", '{"city": "London", "unit": "celsius"}'),
        ),
        # the value never ends
        (
            "<function=get_weather>\n<parameter=city>\nLondon\n</parameter>\n</function>\n</{w}>",
            ("get_weather", '{"city": "London"}'),
        ),
    ],
    ids=["ended-by-the-next-parameter", "never-ended"],
)
def test_a_cut_value_followed_by_a_fresh_call_opens_it(
    parser: str, fresh: str, second: tuple[str, str]
) -> None:
    # vLLM 0.33.0's served answers: a `<function=` in a value that does not end with its own
    # `</parameter>` opened a call (before, the fresh call stayed text of the value)
    w = _WRAPPERS[parser]
    text = f"<{w}>\n<function=get_weather>\n<parameter=city>\nParis<{w}>\n" + fresh.format(w=w)
    vec = dict(_vec(text), parser=parser)
    assert one_shot(vec)[-1] == [("get_weather", "{}"), second]
    for chunking in ("1", "3", "all"):
        cut = ("get_weather", '{"city": "Paris<' + w + ">")
        assert streamed(vec, chunking)[-1] == [cut, second]


@needs_models
def test_a_bare_function_opener_in_an_unended_value_opens_a_call() -> None:
    text = (
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n<function=search>\n"
        "<parameter=query>\nramen\n</parameter>\n</function>\n</tool_call>"
    )
    vec = dict(_vec(text), tools=_SEARCH_AND_WRITE)
    search = ("search", '{"query": "ramen"}')
    assert one_shot(vec)[-1] == [("get_weather", "{}"), search]  # as vLLM 0.33.0
    assert streamed(vec)[-1] == [("get_weather", '{"city": "Paris'), search]


@needs_models
def test_a_quoted_call_stays_in_a_value_that_ends_with_its_own_close() -> None:
    # the stream holds the quoted call from its `<function=` until the value's end shows it
    # was text (vLLM's test_content_with_full_nested_tool_call, the quote cut short)
    quoted = "<tool_call>\n<function=get_weather>\n<parameter=city>\nRome\n</parameter>\n"
    text = (
        f"<tool_call>\n<function=write_file>\n<parameter=content>\nx = '''\n{quoted}'''\n"
        "</parameter>\n<parameter=path>\nf.py\n</parameter>\n</function>\n</tool_call>"
    )
    want = [("write_file", {"content": f"x = '''\n{quoted}'''", "path": "f.py"})]
    vec = dict(_vec(text), tools=_SEARCH_AND_WRITE)
    for got in (one_shot(vec)[-1], *(streamed(vec, c)[-1] for c in ("1", "mix14", "all"))):
        assert [(name, json.loads(raw or "")) for name, raw in got] == want


@needs_models
def test_whitespace_inside_parameter_tags_is_read_as_vllm_reads_it() -> None:
    # vLLM 0.33.0's served answers: its argument regexes allow whitespace inside the tags;
    # the stream leaves the first value at a close tag its window does not know
    text = (
        "<tool_call>\n<function=get_weather>\n<\nparameter=city>\nParis\n</ parameter>\n"
        "<parameter =unit>\ncelsius\n</\nparameter >\n</function>\n</tool_call>"
    )
    assert one_shot(_vec(text))[-1] == [("get_weather", '{"city": "Paris", "unit": "celsius"}')]
    assert streamed(_vec(text))[-1] == [("get_weather", '{"city": "Paris\\n</ parameter')]


@needs_models
def test_held_end_at_end_of_output_closes_the_call() -> None:
    text = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</function>"
    assert one_shot(_vec(text))[-1] == [("get_weather", "{}")]  # as vLLM 0.33.0
    assert [name for name, _ in streamed(_vec(text))[-1]] == ["get_weather"]


@needs_models
@pytest.mark.parametrize("chunking", ["1", "3", "mix14", "all"])
def test_call_promoted_from_reasoning_keeps_the_answer_after_a_later_think_end(
    chunking: str,
) -> None:
    # the whole output in one chunk: the tool parser gets the chunk's ids from the `<tool_call>`
    # that ended the reasoning, not only those after the stray `</think>`
    vec = dict(
        _vec(
            "<think>check\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n"
            "</parameter>\n</function>\n</tool_call></think>The answer follows."
        ),
        reasoning_parser="qwen3",
        source="promoted-call-then-think-end",
    )
    content, reasoning, calls = streamed(vec, chunking)
    assert content == "The answer follows."
    assert reasoning == "check\n"
    assert [(name, json.loads(raw or "")) for name, raw in calls] == [
        ("get_weather", {"city": "Paris"})
    ]
