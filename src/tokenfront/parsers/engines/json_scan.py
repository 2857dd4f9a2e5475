"""Scans over partial JSON text, shared by the streaming tool-call engines."""

from __future__ import annotations

import json
from typing import Any

_JSON_WS = " \t\r\n"


def stable_prefix(text: str, string_keys: list[str] | None) -> tuple[str, bool]:
    """The part of a (partial) JSON arguments object that later text cannot change.

    Members before the last top-level value are stable; the last value is left out unless it
    is a string of a key whose schema only allows strings (`string_keys`; None: any key), whose
    open content then streams. Also tells whether the prefix stops in such a string.
    """
    last_colon = -1
    last_key: str | None = None
    pending: str | None = None
    in_string = escape = False
    start = -1
    depth = 0
    for i, ch in enumerate(text):
        if escape:
            escape = False
            continue
        if in_string:
            if ch == "\\":
                escape = True
            elif ch == '"':
                in_string = False
                if depth == 1 and start >= 0:
                    pending = text[start + 1 : i]
            continue
        if ch == '"':
            in_string = True
            start = i
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        elif ch == ":" and depth == 1:
            last_colon = i
            last_key = pending
            pending = None
    if last_colon < 0:
        return "", False
    end = last_colon + 1
    while end < len(text) and text[end] in _JSON_WS:
        end += 1
    if end >= len(text) or text[end] != '"':
        return text[:end], False
    if string_keys is not None and last_key not in string_keys:
        return text[:end], False
    escape = False
    for i in range(end + 1, len(text)):
        ch = text[i]
        if escape:
            escape = False
        elif ch == "\\":
            escape = True
        elif ch == '"':
            return text[:i], True
    return text, True


def json_object_end(raw: str, start: int) -> int | None:
    """End (exclusive) of the object starting at `raw[start]` == "{", or None while open."""
    depth = 0
    in_string = escape = False
    for i in range(start, len(raw)):
        ch = raw[i]
        if escape:
            escape = False
        elif in_string:
            if ch == "\\":
                escape = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def member_object_span(raw: str, key: str) -> str | None:
    """The verbatim text of the object-valued top-level member `key` (maybe still open).

    None when the member's value has not started; ValueError when it is not an object.
    """
    depth = 0
    in_string = escape = False
    start = -1
    last_string: str | None = None
    for i, ch in enumerate(raw):
        if escape:
            escape = False
            continue
        if in_string:
            if ch == "\\":
                escape = True
            elif ch == '"':
                in_string = False
                if depth == 1:
                    last_string = raw[start + 1 : i]
            continue
        if ch == '"':
            in_string = True
            start = i
        elif ch == ":" and depth == 1 and last_string == key:
            value = i + 1
            while value < len(raw) and raw[value] in _JSON_WS:
                value += 1
            if value >= len(raw):
                return None
            if raw[value] != "{":
                raise ValueError(f"member {key!r} must be a JSON object")
            end = json_object_end(raw, value)
            return raw[value:] if end is None else raw[value:end]
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
    return None


def name_and_arguments(raw: str) -> tuple[Any, str]:
    """A call object's `name` and its `arguments` (or `parameters`, or the other members) as
    JSON text; ("", raw) when `raw` is not a JSON object."""
    raw = raw.strip()
    try:
        parsed = json.loads(raw)
    except json.JSONDecodeError:
        return "", raw
    if not isinstance(parsed, dict):
        return "", raw
    name = parsed.get("name", "")
    for key in ("arguments", "parameters"):
        if key in parsed:
            value = parsed[key]
            return name, value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    rest = {k: v for k, v in parsed.items() if k != "name"}
    return name, json.dumps(rest, ensure_ascii=False)
