"""`engines/retyped_json`: the streamable part of arguments the tool schema retypes."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tokenfront.parsers.engines.retyped_json import retyped_prefix, settled_prefix
from tokenfront.parsers.engines.schema_types import coerce_arguments

PROPS: dict[str, Any] = {
    "count": {"type": "integer"},
    "loc": {"type": "string"},
    "score": {"type": "number"},
    "ok": {"type": "boolean"},
    "inner": {"type": "object", "properties": {"n": {"type": "integer"}}},
    "tags": {"type": "array", "items": {"type": "string"}},
}


def _function() -> dict[str, Any]:
    return {"name": "f", "parameters": {"type": "object", "properties": PROPS}}


@pytest.mark.parametrize(
    "raw",
    [
        '{"count":"5","loc":"NYC"}',
        '{"loc": "NYC", "count": "5"}',
        '{"inner":{"n":"7"},"loc":"NYC"}',
        '{"tags": [1, "a"], "ok": "true", "score": 0.75}',
        '{"loc": "caf\\u00e9 \\"q\\"", "count": 12, "ok": true}',
        '{"count":5}',
        '{"extra": {"a": [1, 2.5, null]}, "count": "3"}',
    ],
)
def test_every_prefix_leads_to_the_one_shot_text(raw: str) -> None:
    """What may be sent after each character is a prefix of the final arguments: the one-shot
    `json.dumps` form when a value is retyped, else the raw text."""
    final = coerce_arguments(raw, _function())
    target = final if final != raw else raw
    sent = ""
    for end in range(len(raw) + 1):
        prefix = settled_prefix(raw[:end], PROPS)
        if prefix.startswith(sent):
            sent = max(sent, prefix, key=len)
        assert target.startswith(sent), (raw[:end], sent)


def test_a_retyped_value_settles_the_dumps_form() -> None:
    assert retyped_prefix('{"count":"5"', PROPS) == ('{"count": 5', True)
    assert settled_prefix('{"count":"5",', PROPS) == '{"count": 5, '


def test_raw_text_streams_while_it_matches_the_dumps_form() -> None:
    assert settled_prefix('{"loc": "Par', PROPS) == '{"loc": "Par'
    assert settled_prefix('{"count": 1', PROPS) == '{"count": 1'
    # an open string for an integer is undecided; compact separators are held back
    assert settled_prefix('{"count": "1', PROPS) == '{"count": '
    assert settled_prefix('{"count":1', PROPS) == '{"count":'


def test_an_integral_fraction_is_the_documented_exception() -> None:
    """`1.0` under a number type becomes `1` one-shot; the stream has sent `1.` by then, so
    the final flush falls back to the raw text (vLLM 0.33.0's stream)."""
    raw = '{"score": 1.0, "loc": "x"}'
    assert coerce_arguments(raw, _function()) == '{"score": 1, "loc": "x"}'
    assert raw.startswith(settled_prefix(raw[:12], PROPS))


def test_not_an_object() -> None:
    assert retyped_prefix('["a"]', PROPS) == ("", False)
    assert json.loads(coerce_arguments('{"ok": "true"}', _function())) == {"ok": True}
