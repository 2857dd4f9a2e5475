"""JSON bytes in and out with orjson, exact for integers outside 64 bits.

orjson reads such integers as floats and cannot write them; vLLM (Python's `json`) keeps them
exact. A body whose text holds a run of 19 or more digits is read again with `json`, and a
payload orjson cannot write is written with `json`.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

# Every digit as "0", every other byte as a space: a run of 19 digits is then one `in` away
# (~1 ns a byte, a quarter of orjson's own time on a logprobs-heavy body; a regex takes 14).
_DIGITS_AS_ZERO = bytes(0x30 if 0x30 <= b <= 0x39 else 0x20 for b in range(256))
_LONG_RUN = b"0" * 19


def loads(raw: bytes | str) -> Any:
    """Parsed JSON (raises `orjson.JSONDecodeError` where orjson does)."""
    data = orjson.loads(raw)
    text = raw.encode() if isinstance(raw, str) else raw
    if _LONG_RUN not in text.translate(_DIGITS_AS_ZERO):
        return data
    try:
        return json.loads(raw)
    except RecursionError:  # nested deeper than Python's json goes (orjson allows 1024)
        return data


def dumps(payload: Any, *, non_str_keys: bool = False) -> bytes:
    """`payload` as compact JSON bytes (int dict keys written as strings with `non_str_keys`)."""
    try:
        return orjson.dumps(payload, option=orjson.OPT_NON_STR_KEYS if non_str_keys else None)
    except TypeError:  # an integer outside 64 bits
        return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
