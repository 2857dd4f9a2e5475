"""engines/json_calls.py: `SuffixLoads` answers as `partial_loads` on each suffix, in linear time."""

from __future__ import annotations

import json
import random

import pytest
from json_support import joined, oneshot, stream, tokenizer

from tokenfront.parsers.engines.json_calls import (
    ALLOW_ALL,
    ALLOW_NO_PARTIAL_STR,
    SuffixLoads,
    partial_loads,
)

PIECES = [
    "{", "}", "[", "]", '"', '"name"', ":", ",", " ", ";", "1", "tru", "true", "\\", "x", "\n",
    '{"name": "f", "arguments": {}}', '{"a": [1, {"b": "}"}]}', '"\\\\"', '\\"', ", \"k", "{}",
    "[1, 2]", "1.", "-", "\x0b", "{x}", "[1,]", '{"a" 1}', "null", "\t",
]  # fmt: skip


def _outcome(loads: object, *args: object) -> tuple[object, ...]:
    try:
        value, used = loads(*args)  # type: ignore[operator]
    except Exception as exc:
        return ("raises", type(exc))
    return ("returns", repr(value), used)


@pytest.mark.parametrize("flags", [ALLOW_ALL, ALLOW_NO_PARTIAL_STR], ids=["all", "no_partial_str"])
def test_suffix_loads_answers_as_partial_loads_on_every_suffix_of_random_text(flags: object) -> None:
    rng = random.Random(20260412)
    for _ in range(1500):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 12)))
        positions = list(range(len(text)))
        if rng.random() < 0.3:
            rng.shuffle(positions)
        loads = SuffixLoads(text, flags)  # type: ignore[arg-type]
        for pos in positions:
            expected = _outcome(partial_loads, text[pos:], flags)
            assert _outcome(loads, pos) == expected, (text, pos)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', ("returns", "{'a': 1}", 8)),
        ('{"a": 1} \n', ("returns", "{'a': 1}", 10)),  # trailing JSON whitespace is used
        ('{"a": 1}; {"b": 2}', ("returns", "{'a': 1}", 8)),
        ('{"a": 1}; {"b', ("returns", "{'a': 1}", 8)),
        ('{"a": 1}; {"b": 2}; }', ("raises", IndexError)),  # a stray closer anywhere after
        ('{"a": 1} {"b": 2} ]', ("raises", IndexError)),
        ('{"a": 1} [}', ("raises", AssertionError)),
        ('{x}; {"a": 1}', ("raises", json.JSONDecodeError)),  # closed by the scan, no JSON
        ("{x}; }", ("raises", IndexError)),  # ... the scan's error comes first
        ('1 {"a": 1}', ("returns", "1", 1)),
        ("1 }", ("raises", IndexError)),
        ('1 "a"', ("returns", "1", 5)),  # a leading quote: the value completed alone
        (' {"a": 1}', ("returns", "{'a': 1}", 9)),
    ],
)
def test_what_follows_a_complete_object_decides_as_in_partial_loads(
    text: str, expected: tuple[object, ...]
) -> None:
    assert _outcome(partial_loads, text, ALLOW_ALL) == expected
    assert _outcome(SuffixLoads(text, ALLOW_ALL), 0) == expected


# (parser, model, what opens a call, what separates calls)
CALL_LISTS = [
    ("llama3_json", "llama3", "", "; "),
    ("llama4_json", "llama3", "", "; "),
    ("granite-20b-fc", "synthetic-multi", "<function_call> ", " "),
]


def _many_calls(lead: str, sep: str, size: int) -> str:
    """Calls with list arguments (many quotes and brackets to scan) up to `size` characters."""
    calls = []
    for i in range(25):
        items = ", ".join(f'"v{i}.{j}"' for j in range(size // 25 // 9))
        calls.append(lead + f'{{"name": "get_weather", "arguments": {{"city": [{items}]}}}}')
    return sep.join(calls)


@pytest.mark.parametrize(("parser", "model", "lead", "sep"), CALL_LISTS)
def test_one_chunk_of_100k_characters_streams_the_one_shot_calls(
    parser: str, model: str, lead: str, sep: str
) -> None:
    text = _many_calls(lead, sep, 100_000)
    assert len(text) > 99_000
    ids = tokenizer(model).encode(text, add_special_tokens=False)
    content, calls = joined(stream(parser, model, [(text, ids)]))
    assert len(calls) == 25
    assert (content, calls) == oneshot(parser, model, text)


@pytest.mark.parametrize(("parser", "model", "lead", "sep"), CALL_LISTS)
def test_one_chunk_of_many_small_calls_streams_every_call(
    parser: str, model: str, lead: str, sep: str
) -> None:
    # the per-chunk step budget grows with the calls (it stopped at 64 steps: 32 calls)
    text = sep.join(
        lead + json.dumps({"name": "get_weather", "arguments": {"city": f"c{i}"}})
        for i in range(120)
    )
    ids = tokenizer(model).encode(text, add_special_tokens=False)
    content, calls = joined(stream(parser, model, [(text, ids)]))
    assert len(calls) == 120
    assert (content, calls) == oneshot(parser, model, text)
