"""glm45 / glm47: golden vLLM answers plus own cases."""

from __future__ import annotations

import pytest
from xml_support import (
    check_golden_oneshot,
    check_golden_stream,
    golden,
    make,
    oneshot,
    run_stream,
    token_chunks,
    tool,
)

MODEL = "synthetic-multi"
WEATHER = tool(
    "get_weather",
    {"city": {"type": "string"}, "days": {"type": "integer"}, "opts": {"type": "object"}},
)


def parser(**kw: object):
    kw.setdefault("tools", [WEATHER])
    return make("glm45", MODEL, reasoning_parser=True, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("case", golden("glm45", "oneshot"), ids=lambda c: c["id"])
def test_golden_oneshot(case: dict) -> None:
    check_golden_oneshot(case)


@pytest.mark.parametrize("case", golden("glm45", "stream"), ids=lambda c: c["id"])
def test_golden_stream(case: dict) -> None:
    check_golden_stream(case)


def test_flags() -> None:
    # glm45 is glm47 plus the undeclared-function deviation (docs/deviations.md).
    assert isinstance(make("glm45", MODEL), type(make("glm47", MODEL)))
    assert parser().supports_required_and_named is False


ONE = (
    "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n"
    "<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>"
)


@pytest.mark.parametrize(
    ("text", "calls", "content"),
    [
        ("Plain <b>text</b>", [], "Plain <b>text</b>"),
        (ONE, [("get_weather", '{"city": "Paris", "days": 3}')], None),
        # Values are verbatim (no trimming); the name may run straight into the first key.
        (
            "<tool_call>get_weather<arg_key>city</arg_key><arg_value> Pa ris </arg_value></tool_call>",
            [("get_weather", '{"city": " Pa ris "}')],
            None,
        ),
        # Deviations from vLLM 0.33.0 (test_glm4_moe_tool_parser.py): a function the request
        # does not offer is kept, its JSON-looking values decoded; the content before the
        # first call keeps its whitespace.
        (
            "Hi.\n<tool_call>launch\n<arg_key>x</arg_key>\n<arg_value>1</arg_value>\n</tool_call>",
            [("launch", '{"x": 1}')],
            "Hi.\n",
        ),
        ("Hi.\n<tool_call>get_weather\n</tool_call>\nBye.", [("get_weather", "{}")], "Hi.\n"),
        (
            "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>A</arg_value>\n</tool_call>"
            '<tool_call>get_weather\n<arg_key>opts</arg_key>\n<arg_value>{"z": "ü"}</arg_value>\n</tool_call>',
            [("get_weather", '{"city": "A"}'), ("get_weather", '{"opts": {"z": "ü"}}')],
            None,
        ),
        # Deviation: a call cut off before `</tool_call>` is no call, its text is content.
        (
            "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Ber",
            [],
            "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Ber",
        ),
        (
            ONE + "\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Ber",
            [("get_weather", '{"city": "Paris", "days": 3}')],
            None,
        ),
        ("Hi <tool_call>   ", [], "Hi <tool_call>   "),
        ("<think>x</think>Answer", [], "Answer"),
    ],
)
def test_oneshot(text: str, calls: list, content: str | None) -> None:
    assert oneshot(parser(), text) == (calls, content)


def test_unknown_function_kept_without_tools() -> None:
    text = "<tool_call>launch\n<arg_key>x</arg_key>\n<arg_value>1</arg_value>\n</tool_call>"
    assert oneshot(parser(tools=None), text) == ([("launch", '{"x": "1"}')], None)


def test_thinking_off_makes_think_tags_text() -> None:
    p = parser(chat_template_kwargs={"enable_thinking": False})
    assert oneshot(p, "<think>x</think>Answer") == ([], "<think>x</think>Answer")


@pytest.mark.parametrize("per", [1, 2, 5, 1000])
def test_stream_matches_oneshot(per: int) -> None:
    content, calls, _ = run_stream(parser(), token_chunks(ONE + ONE, MODEL, per))
    assert calls == [("get_weather", '{"city": "Paris", "days": 3}')] * 2
    assert content == ""


def test_stream_repeated_key_keeps_first_streamed_value() -> None:
    text = (
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>A</arg_value>\n"
        "<arg_key>city</arg_key>\n<arg_value>B</arg_value>\n</tool_call>"
    )
    assert oneshot(parser(), text) == ([("get_weather", '{"city": "B"}')], None)
    assert run_stream(parser(), token_chunks(text, MODEL))[1] == [("get_weather", '{"city": "A')]


@pytest.mark.parametrize(
    ("text", "choice", "calls", "content"),
    [
        # an unclosed call after a closed one: its unfinished tag goes with it
        ("<tool_call>get_weather</tool_call><tool_call><", "auto", [("get_weather", "{}")], None),
        ("<tool_call>get_weather</tool_call><tool_call><", "none", [], None),
        ("<tool_call>get_weather</tool_call>\n<tool_call>search\n<arg", "none", [], "\n"),
        # under tool_choice "none" an unclosed call alone is dropped too, as streamed
        ("<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>P", "none", [], None),
        ("<tool_call>x<a", "auto", [], "<tool_call>x<a"),
    ],
)
def test_an_unclosed_call_leaves_no_fragment(
    text: str, choice: str, calls: list, content: str | None
) -> None:
    # vLLM 0.33.0's answers, served (sweep seed 39); auto's unclosed-call-alone-is-content
    # is test_glm4_moe_tool_parser.py::test_extract_tool_calls_incomplete_tool_call
    assert oneshot(parser(tool_choice=choice), text) == (calls, content)
