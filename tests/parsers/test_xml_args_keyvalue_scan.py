"""KeyValueCodec (GLM-4.5 / 4.7 arguments) scans its pairs as its regexes match them, in
linear time."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
import regex
from marker_texts import marker_text

from tokenfront.parsers.engines.xml_args import KeyValueCodec, PairScanner

MARKERS = ["<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>"]
ALPHABET = [*MARKERS, "\n", " ", "x", "\x1c", "<"]
CASES = 6000


def _text(rng: random.Random) -> str:
    """Half the pieces follow the markers' order, so most texts hold pairs (some several)."""
    return marker_text(rng, MARKERS, ALPHABET, 24)


def _texts(seed: int) -> list[str]:
    rng = random.Random(seed)
    return [_text(rng) for _ in range(CASES)]


def _regex_parse(raw: str, partial: bool) -> tuple[list[tuple[str, Any]], str | None]:
    """KeyValueCodec._parse as the regexes alone give it."""
    params: dict[str, Any] = {}
    for m in KeyValueCodec._pair.finditer(raw):
        params[m.group("key").strip()] = m.group("value")
    open_key = None
    if partial:
        m = KeyValueCodec._open.search(KeyValueCodec._pair.sub("", raw))
        if m and m.group("key").strip():
            open_key = m.group("key").strip()
            params[open_key] = m.group("value")
    return list(params.items()), open_key


def test_pairs_and_open_pair_are_the_regex_matches_with_their_spans() -> None:
    scan: PairScanner = KeyValueCodec._scan
    for text in _texts(20261203):
        expected = [
            (m.group("key"), m.group("value"), m.start(), m.end())
            for m in KeyValueCodec._pair.finditer(text)
        ]
        assert [tuple(p) for p in scan.pairs(text)] == expected, text
        m = KeyValueCodec._open.search(text)
        want = None if m is None else (m.group("key"), m.group("value"), m.start(), m.end())
        found = scan.open_pair(text)
        assert (None if found is None else tuple(found)) == want, text


def test_parse_gives_what_the_regexes_give_complete_and_partial() -> None:
    codec = KeyValueCodec()
    for text in _texts(7):
        for partial in (False, True):
            params, open_key = codec._parse(text, partial)
            assert (list(params.items()), open_key) == _regex_parse(text, partial), text


def test_scanner_spaces_follow_the_regex_module_not_re() -> None:
    # \x1c is a space to `re` but not to `regex`, the module of KeyValueCodec's patterns
    text = "<arg_key>k</arg_key>\x1c<arg_value>v</arg_value>"
    assert not list(KeyValueCodec._scan.pairs(text))
    assert regex.search(r"\s", "\x1c") is None


@pytest.mark.parametrize(
    ("unit", "partial_from"),
    [
        ("<tool_call>get_weather\n<arg_key>city</arg_key><a", None),
        ("<arg_key>city</arg_key>\n<arg_value>Paris", 35),
        ("<arg_key>a</arg_key> ", None),
    ],
)
def test_many_key_starts_without_closers_convert_like_a_few(
    unit: str, partial_from: int | None
) -> None:
    # 60k characters: the regexes take seconds here; no pair closes, only the first key may
    # hold the open value (everything after its <arg_value>)
    raw = unit * (60_000 // len(unit))
    assert KeyValueCodec().convert(raw, False) == "{}"
    expected = {} if partial_from is None else {"city": raw[partial_from:]}
    assert json.loads(KeyValueCodec().convert(raw, True)) == expected
