"""step3: golden vLLM answers plus own cases."""

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
BEGIN, END = "<｜tool_calls_begin｜>", "<｜tool_calls_end｜>"


def invoke(name: str, kind: str = "function", **params: str) -> str:
    body = "".join(
        f'<steptml:parameter name="{k}">{v}</steptml:parameter>' for k, v in params.items()
    )
    return (
        f'<｜tool_call_begin｜>{kind}<｜tool_sep｜><steptml:invoke name="{name}">{body}'
        "</steptml:invoke><｜tool_call_end｜>"
    )


def parser(**kw: object):
    kw.setdefault("tools", [WEATHER])
    return make("step3", MODEL, reasoning_parser=True, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("case", golden("step3", "oneshot"), ids=lambda c: c["id"])
def test_golden_oneshot(case: dict) -> None:
    check_golden_oneshot(case)


@pytest.mark.parametrize("case", golden("step3", "stream"), ids=lambda c: c["id"])
def test_golden_stream(case: dict) -> None:
    check_golden_stream(case)


@pytest.mark.parametrize(
    ("text", "calls", "content"),
    [
        ("plain", [], "plain"),
        (
            # A string keeps its whitespace (vLLM test_string_value_preserved); others trim.
            BEGIN + invoke("get_weather", city=" Paris ", days=" 3 ") + END,
            [("get_weather", '{"city": " Paris ", "days": 3}')],
            None,
        ),
        (
            "Hi.\n" + BEGIN + invoke("get_weather", city="A") + END + " Bye.",
            [("get_weather", '{"city": "A"}')],
            "Hi.\n Bye.",
        ),
        (
            BEGIN + invoke("get_weather", city="A") + invoke("other", x="1") + END,
            [("get_weather", '{"city": "A"}'), ("other", '{"x": "1"}')],
            None,
        ),
        # Only int/number/boolean/null/string are typed; objects stay text.
        (
            BEGIN + invoke("get_weather", days="x", opts='{"a": 1}') + END,
            [("get_weather", '{"days": "x", "opts": "{\\"a\\": 1}"}')],
            None,
        ),
        (BEGIN + invoke("get_weather") + END, [("get_weather", "{}")], None),
    ],
)
def test_oneshot(text: str, calls: list, content: str | None) -> None:
    assert oneshot(parser(), text) == (calls, content)


@pytest.mark.parametrize(
    "text", [BEGIN + invoke("get_weather", city="A"), BEGIN + invoke("f", kind="code") + END]
)
def test_oneshot_needs_a_closed_section_and_function_calls(text: str) -> None:
    assert oneshot(parser(), text) == ([], text)


def test_stream() -> None:
    text = (
        "Hi.\n"
        + BEGIN
        + invoke("get_weather", city="A", days="2")
        + invoke("get_weather")
        + END
        + "tail"
    )
    p = parser()
    content, calls, _ = run_stream(p, token_chunks(text, MODEL))
    assert content == "Hi.\ntail"
    # Arguments arrive whole when a call closes; an empty call streams "{}" (vLLM tests).
    assert calls == [("get_weather", '{"city": "A", "days": 2}'), ("get_weather", "{}")]
    assert p.remaining_args({"calls": [{}]}) == "{}"
    assert p.remaining_args(p.initial_state()) == ""


def test_stream_unclosed_section_still_streams() -> None:
    text = BEGIN + invoke("get_weather", city="A")
    assert run_stream(parser(), token_chunks(text, MODEL))[1] == [("get_weather", '{"city": "A"}')]


def test_stream_takes_one_step_per_chunk_and_the_rest_at_the_end() -> None:
    # vLLM 0.33.0 takes one step per chunk (a whole call in one chunk: its name, then its
    # arguments with the next chunk); the steps the final chunk leaves are taken at the end
    whole = BEGIN + invoke("get_weather", city="A") + END
    p = parser()
    state = p.initial_state()
    first = p.stream(state, whole, [])
    assert first is not None and [(c.name, c.arguments) for c in first.tool_calls] == [
        ("get_weather", None)
    ]
    second = p.stream(state, "[tail", [])
    assert second is not None
    assert [(c.name, c.arguments) for c in second.tool_calls] == [(None, '{"city": "A"}')]
    third = p.stream(state, "]", [])
    assert third is not None and third.content == "[tail]"
    assert run_stream(parser(), [whole + "tail"])[:2] == ("tail", [("get_weather", '{"city": "A"}')])
