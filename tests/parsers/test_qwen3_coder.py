"""qwen3_coder / qwen3_xml: golden vLLM answers plus own cases."""

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

WEATHER = tool(
    "get_weather",
    {
        "city": {"type": "string"},
        "days": {"type": "integer"},
        "metric": {"type": "boolean"},
        "ratio": {"type": "number"},
        "opts": {"type": "object"},
        "tags": {"type": "array"},
        "maybe": {"type": ["string", "null"]},
    },
)


def call(name: str, *params: tuple[str, str]) -> str:
    body = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in params)
    return f"<tool_call>\n<function={name}>\n{body}</function>\n</tool_call>"


@pytest.mark.parametrize("case", golden("qwen3_coder", "oneshot"), ids=lambda c: c["id"])
def test_golden_oneshot(case: dict) -> None:
    check_golden_oneshot(case)


@pytest.mark.parametrize("case", golden("qwen3_coder", "stream"), ids=lambda c: c["id"])
def test_golden_stream(case: dict) -> None:
    check_golden_stream(case)


def test_qwen3_xml_is_qwen3_coder_keeping_text_without_tool_choice() -> None:
    xml, coder = make("qwen3_xml"), make("qwen3_coder")
    assert isinstance(xml, type(coder))
    assert coder.supports_required_and_named is False
    assert coder.engine_based is True
    # vLLM issue #55080 (tests/parser/test_tool_choice_none_preserves_content.py names qwen3_xml)
    assert xml.keeps_text_without_tool_choice and not coder.keeps_text_without_tool_choice


@pytest.mark.parametrize(
    ("text", "calls", "content"),
    [
        ("Just text. <b>bold</b> a > b", [], "Just text. <b>bold</b> a > b"),
        (call("get_weather", ("city", "Paris")), [("get_weather", '{"city": "Paris"}')], None),
        # Text around a call: what follows the call is lost in one-shot parsing (vLLM quirk).
        (
            "Before.\n" + call("get_weather", ("city", "Rome")) + "\nAfter.",
            [("get_weather", '{"city": "Rome"}')],
            "Before.",
        ),
        (
            call("get_weather", ("city", "A")) + "\n" + call("other", ("q", "B")),
            [("get_weather", '{"city": "A"}'), ("other", '{"q": "B"}')],
            None,
        ),
        # Unknown functions are kept; a JSON body instead of parameters gives no arguments.
        (call("launch", ("x", "1")), [("launch", '{"x": "1"}')], None),
        (
            '<tool_call>\n<function=get_weather>\n{"city": "X"}\n</function>\n</tool_call>',
            [("get_weather", "{}")],
            None,
        ),
        # A bare <function=...> opens a call too; text after it (outside a call) is dropped.
        (
            "x <function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n</function> y",
            [("get_weather", '{"city": "Oslo"}')],
            "x",
        ),
        # Cut off inside a value: the open parameter is not part of the final arguments.
        (
            "Sure.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nBerl",
            [("get_weather", "{}")],
            "Sure.",
        ),
        ("Sure.\n<tool_ca", [], "Sure.\n<tool_ca"),
        ("<tool_call>\n</tool_call>rest", [], "rest"),
        # Deviation from vLLM 0.33.0 (test_none_tool_calls_filtered): an unterminated name is
        # no call.
        ("<tool_call>\n<function=get_weather\n</tool_call>", [], None),
        # No reasoning parser: think tags are text; unused special tokens are dropped.
        ("<think>\nhmm\n</think>\n\nAnswer.", [], "<think>\nhmm\n</think>\n\nAnswer."),
        ("Hi<|im_end|> there<|endoftext|>", [], "Hi there"),
    ],
)
def test_oneshot(text: str, calls: list, content: str | None) -> None:
    assert oneshot(make("qwen3_coder", tools=[WEATHER]), text) == (calls, content)


def test_schema_typing() -> None:
    text = call(
        "get_weather",
        ("city", "42"), ("days", "3"), ("metric", "True"), ("ratio", "2.50"),
        ("opts", '{"a": [1, {"b": null}]}'), ("tags", '["x", "ü"]'), ("maybe", "null"),
    )  # fmt: skip
    args = (
        '{"city": "42", "days": 3, "metric": true, "ratio": 2.5, '
        '"opts": {"a": [1, {"b": null}]}, "tags": ["x", "ü"], "maybe": null}'
    )
    assert oneshot(make("qwen3_coder", tools=[WEATHER]), text) == ([("get_weather", args)], None)
    bad = call(
        "get_weather", ("days", "three"), ("metric", "yes"), ("opts", "{broken"), ("ratio", "1e999")
    )
    args = '{"days": "three", "metric": "yes", "opts": "{broken", "ratio": "1e999"}'
    assert oneshot(make("qwen3_coder", tools=[WEATHER]), bad) == ([("get_weather", args)], None)
    # Without tools every value stays a string.
    assert oneshot(make("qwen3_coder"), call("f", ("n", "3"))) == ([("f", '{"n": "3"}')], None)


def test_unicode_and_escapes() -> None:
    text = call("get_weather", ("city", '"東京" \\ 🌧'), ("opts", '{"k": "ü\\n", "n": [1.5, -2]}'))
    args = '{"city": "\\"東京\\" \\\\ 🌧", "opts": {"k": "ü\\n", "n": [1.5, -2]}}'
    assert oneshot(make("qwen3_coder", tools=[WEATHER]), text) == ([("get_weather", args)], None)


def test_tool_choice_none_removes_markup() -> None:
    parser = make("qwen3_coder", tools=[WEATHER], tool_choice="none")
    assert oneshot(parser, "Hi " + call("get_weather", ("city", "A"))) == ([], "Hi ")


@pytest.mark.parametrize("per", [1, 2, 3, 7, 1000])
@pytest.mark.parametrize(
    "text",
    [
        call("get_weather", ("city", "Paris"), ("days", "3")),
        call("get_weather", ("city", '"東京" \\ 🌧'), ("opts", '{"k": [1, 2]}'), ("metric", "false"))
        + "\n"
        + call("get_weather", ("city", "B")),
    ],
)
def test_stream_matches_oneshot(text: str, per: int) -> None:
    expected, _ = oneshot(make("qwen3_coder", tools=[WEATHER]), text)
    content, calls, _ = run_stream(
        make("qwen3_coder", tools=[WEATHER]), token_chunks(text, per=per)
    )
    assert calls == expected
    assert content in ("", "\n")


def test_stream_holds_typed_values_and_streams_strings() -> None:
    text = call("get_weather", ("city", "Par is"), ("days", "12"))
    _, calls, deltas = run_stream(make("qwen3_coder", tools=[WEATHER]), token_chunks(text))
    pieces = [tc.arguments for d in deltas if d for tc in d.tool_calls if tc.arguments]
    assert calls == [("get_weather", '{"city": "Par is", "days": 12}')]
    assert "12" not in "".join(pieces[:-1])  # the integer arrives only once closed
    assert pieces[-1].endswith("12}")


def test_stream_cut_off() -> None:
    text = "Sure.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nBerl"
    content, calls, _ = run_stream(make("qwen3_coder", tools=[WEATHER]), token_chunks(text))
    assert content == "Sure.\n"
    assert calls == [("get_weather", '{"city": "Berl')]


def test_stream_marker_typed_as_text_is_content() -> None:
    # While streaming with token ids, only the <tool_call> token opens a call.
    content, calls, _ = run_stream(make("qwen3_coder"), [("<tool_call>", [27, 14172, 13429, 29])])
    assert (content, calls) == ("<tool_call>", [])
