"""minimax_m2: golden vLLM answers plus own cases."""

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
WEATHER = tool("get_weather", {"city": {"type": "string"}, "days": {"type": "integer"}})


def parser(**kw: object):
    kw.setdefault("tools", [WEATHER])
    return make("minimax_m2", MODEL, reasoning_parser=True, **kw)  # type: ignore[arg-type]


def section(*invokes: str) -> str:
    return "<minimax:tool_call>\n" + "".join(invokes) + "</minimax:tool_call>"


def invoke(name: str, **params: str) -> str:
    body = "".join(f'<parameter name="{k}">{v}</parameter>\n' for k, v in params.items())
    return f'<invoke name="{name}">\n{body}</invoke>\n'


@pytest.mark.parametrize("case", golden("minimax_m2", "oneshot"), ids=lambda c: c["id"])
def test_golden_oneshot(case: dict) -> None:
    check_golden_oneshot(case)


@pytest.mark.parametrize("case", golden("minimax_m2", "stream"), ids=lambda c: c["id"])
def test_golden_stream(case: dict) -> None:
    check_golden_stream(case)


@pytest.mark.parametrize(
    ("text", "calls", "content"),
    [
        ("Plain a > b", [], "Plain a > b"),
        (
            section(invoke("get_weather", city="Paris", days="3")),
            [("get_weather", '{"city": "Paris", "days": 3}')],
            None,
        ),
        # Single-quoted and bare names; values verbatim.
        (
            "<minimax:tool_call><invoke name='get_weather'><parameter name='city'> Pa ris </parameter>"
            "</invoke><invoke name=get_weather><parameter name=days>4</parameter></invoke></minimax:tool_call>",
            [("get_weather", '{"city": " Pa ris "}'), ("get_weather", '{"days": 4}')],
            None,
        ),
        ("Hi.\n" + section(invoke("launch", x="1")), [], "Hi.\n"),
        ("Hi.\n" + section(invoke("get_weather")) + "\nBye.", [("get_weather", "{}")], "Hi."),
        (
            # A cut-off last parameter keeps its value (vLLM's test_minimax_m2.py; 0.33.0: {}).
            '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Ber',
            [("get_weather", '{"city": "Ber"}')],
            None,
        ),
        # An unclosed parameter ends at the next one opening; the unclosed last one is kept
        # (vLLM's test_unclosed_last_parameter_is_preserved; 0.33.0 drops it).
        (
            '<minimax:tool_call><invoke name="get_weather"><parameter name="city">A'
            '<parameter name="days">2</invoke></minimax:tool_call>',
            [("get_weather", '{"city": "A", "days": 2}')],
            None,
        ),
        (
            'x <invoke name="get_weather"><parameter name="city">Q</parameter></invoke> y',
            [("get_weather", '{"city": "Q"}')],
            "x",
        ),
    ],
)
def test_oneshot(text: str, calls: list, content: str | None) -> None:
    assert oneshot(parser(), text) == (calls, content)


@pytest.mark.parametrize("per", [1, 3, 1000])
def test_stream_matches_oneshot(per: int) -> None:
    text = section(
        invoke("get_weather", city='"Zoë" \\ 🌧', days="3"), invoke("get_weather", city="B")
    )
    expected = [
        ("get_weather", '{"city": "\\"Zoë\\" \\\\ 🌧", "days": 3}'),
        ("get_weather", '{"city": "B"}'),
    ]
    assert oneshot(parser(), text)[0] == expected
    assert run_stream(parser(), token_chunks(text, MODEL, per))[1] == expected


def test_a_chunk_of_an_open_value_is_read_piece_by_piece_up_to_its_end() -> None:
    # a new section opens inside the unclosed `city` value: vLLM 0.33.0 appends the value text
    # up to the next `<parameter name=` and then sends nothing more (re-read, the arguments
    # are no longer an extension of what was sent), in whichever chunking
    head = '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">P'
    tail = section(invoke("get_weather", city="T"))
    cut = ("get_weather", '{"city": "P<minimax:tool_call>\\n<invoke name=\\"get_weather\\">\\n')
    for chunks in (
        token_chunks(head + tail, MODEL),
        token_chunks(head + tail, MODEL, per=5),
        token_chunks(head, MODEL, per=99) + token_chunks(tail, MODEL, per=99),
        token_chunks(head + tail, MODEL, per=999),
    ):
        assert run_stream(parser(), chunks)[1] == [cut]
    assert oneshot(parser(), head + tail)[0] == [("get_weather", '{"city": "T"}')]
