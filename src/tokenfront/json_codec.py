"""JSON bytes in and out with orjson, exact for integers outside 64 bits.

orjson reads such integers as floats and cannot write them; vLLM (Python's `json`) keeps them
exact. A body whose text holds a run of 19 or more digits is read again with `json`, and a
payload orjson cannot write is written with `json`.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

_LONG_DIGITS = re.compile(rb"\d{19}")


def loads(raw: bytes | str) -> Any:
    """Parsed JSON (raises `orjson.JSONDecodeError` where orjson does)."""
    data = orjson.loads(raw)
    text = raw.encode() if isinstance(raw, str) else raw
    if _LONG_DIGITS.search(text) is None:
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
