"""JSON arguments respaced while streaming (tokenfront.parsers.engines.json_respace)."""

from __future__ import annotations

import json
import random

import pytest

from tokenfront.parsers.engines.json_respace import finish, new_respace, respace


def _run(text: str, sizes: list[int] | None = None) -> list[str]:
    st = new_respace()
    pieces: list[str] = []
    i = 0
    for size in sizes or [len(text)]:
        pieces.append(respace(st, text[i : i + size]))
        i += size
    pieces.append(respace(st, text[i:]) + finish(st))
    return pieces


@pytest.mark.parametrize(
    "text",
    [
        '{\n"location": "Tokyo"\n}',
        '{"a":1,"b":[1,2 , {"c" :null}],"d":"x y\\" z"}',
        "  [ ]  ",
        "{ }",
        '"hello"',
        "12",
        '{"a":\n\n  -1.5, "b": true, "c" : false , "e": [ [ ], { } ]}',
        '{"k": "a , b : c", "s": "\\\\"}',
    ],
)
def test_valid_json_is_spaced_as_json_dumps(text: str) -> None:
    assert "".join(_run(text)) == json.dumps(json.loads(text))


def test_canonical_text_streams_chunk_for_chunk() -> None:
    pieces = ['{"', "city", '":', ' "', "Paris", '",', ' "', "days", '":', " ", "3", "}"]
    st = new_respace()
    assert [respace(st, p) for p in pieces] == pieces
    assert finish(st) == ""


def test_owed_space_comes_with_the_next_value() -> None:
    st = new_respace()
    assert respace(st, '{"a":') == '{"a":'
    assert respace(st, "1") == " 1"


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("get weather in Tokyo", "get weather in Tokyo"),
        ('{"a": tru e}', '{"a": tru e}'),
        ('{ "a": 1 }  trailing', '{"a": 1}  trailing'),
        ('{"a":"line\nbreak"}', '{"a": "line\nbreak"}'),  # raw control char: as written from there
        ("[1,2,]", "[1, 2,]"),
        ('{\n "city": "Par', '{"city": "Par'),
        ('{"a": [1,\n  ', '{"a": [1,\n  '),  # held whitespace of an unfinished value is sent
    ],
)
def test_text_that_stops_reading_as_json(text: str, want: str) -> None:
    assert "".join(_run(text)) == want


def test_split_invariant() -> None:
    rng = random.Random(7)
    texts = ['{ "a" :\n [1, {"b" : "c\\"d"} ,  null ] , "e":-0.5e+3 }', "{ x }", '[ "a" ,\t"b" ] x']
    for text in texts:
        whole = "".join(_run(text))
        for _ in range(200):
            sizes = []
            while sum(sizes) < len(text):
                sizes.append(rng.randint(1, 4))
            assert "".join(_run(text, sizes)) == whole
