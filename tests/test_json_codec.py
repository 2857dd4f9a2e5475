"""tokenfront.json_codec: orjson speed, Python json's exact big integers."""

from __future__ import annotations

import json

import orjson
import pytest

from tokenfront import json_codec

BIG = 2**70


def test_integers_beyond_64_bits_are_read_exactly() -> None:
    assert json_codec.loads(f'{{"ids": [1, {BIG}, {-BIG}]}}'.encode()) == {"ids": [1, BIG, -BIG]}


def test_64_bit_integers_and_floats_read_as_orjson_reads_them() -> None:
    raw = b'{"u": 18446744073709551615, "i": -9223372036854775808, "f": 0.1234567890123456789}'
    assert json_codec.loads(raw) == orjson.loads(raw)


def test_long_digit_runs_inside_strings_read_the_same() -> None:
    raw = b'{"s": "12345678901234567890123"}'
    assert json_codec.loads(raw) == {"s": "12345678901234567890123"}


def test_malformed_json_raises_orjsons_error() -> None:
    with pytest.raises(orjson.JSONDecodeError):
        json_codec.loads(b'{"a": 12345678901234567890123')


def test_payloads_with_big_integers_are_written() -> None:
    payload = {"ids": [BIG], 3: "x"}
    assert json.loads(json_codec.dumps(payload, non_str_keys=True)) == {"ids": [BIG], "3": "x"}


def test_ordinary_payloads_are_orjsons_bytes() -> None:
    payload = {"a": [1, 2.5, None, "é"], 7: True}
    assert json_codec.dumps(payload, non_str_keys=True) == orjson.dumps(payload, option=orjson.OPT_NON_STR_KEYS)
