"""Scans over partial JSON text, shared by the streaming tool-call engines."""

from __future__ import annotations

import json
import re
from typing import Any

from tokenfront.parsers.engines.last_read import LastRead

_JSON_WS = " \t\r\n"
_STRUCTURE = re.compile(r'["{}\[\]:,]')


# The scan state at the last top-level comma of the last text: the next text that starts
# with the same members resumes there.
_last_scan = LastRead()


def stable_prefix(text: str, string_keys: list[str] | None) -> tuple[str, bool]:
    """The part of a (partial) JSON arguments object that later text cannot change.

    Members before the last top-level value are stable; the last value is left out unless it
    is a string of a key whose schema only allows strings (`string_keys`; None: any key), whose
    open content then streams. Also tells whether the prefix stops in such a string.
    """
    last_colon, last_key, _ = top_level_members(text, _last_scan)
    if last_colon < 0:
        return "", False
    end = last_colon + 1
    while end < len(text) and text[end] in _JSON_WS:
        end += 1
    if end >= len(text) or text[end] != '"':
        return text[:end], False
    if string_keys is not None and last_key not in string_keys:
        return text[:end], False
    close = _string_end(text, end + 1)
    return (text if close < 0 else text[:close]), True


def top_level_members(text: str, last: LastRead) -> tuple[int, str | None, int]:
    """Where a (partial) JSON object's last top-level key ends (its colon; -1: none), that
    key's text, and the offset after its last top-level comma (0: none). Resumes at the
    last comma of the text `last` kept when `text` starts with it, and keeps its own."""
    resumed = last.resumable(None, text)
    if resumed is not None:
        begin, depth = len(last.text), 1
        last_colon, last_key, pending = resumed
    else:
        begin, depth = 0, 0
        last_colon, last_key, pending = -1, None, None
    checkpoint = begin if resumed is not None else 0
    state = resumed
    i = begin
    while (found := _STRUCTURE.search(text, i)) is not None:
        at = found.start()
        ch = text[at]
        if ch == '"':
            close = _string_end(text, at + 1)
            if close < 0:
                break  # an open string runs to the end
            if depth == 1:
                pending = text[at + 1 : close]
            i = close + 1
            continue
        i = at + 1
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        elif depth == 1:
            if ch == ":":
                last_colon, last_key, pending = at, pending, None
            else:
                checkpoint, state = i, (last_colon, last_key, pending)
    if checkpoint > begin:
        last.keep(None, text[:checkpoint], state)
    return last_colon, last_key, checkpoint


def _string_end(text: str, at: int) -> int:
    """The offset of the quote closing a JSON string whose content starts at `at` (the first
    quote after an even run of backslashes); -1 if the string is still open at the end of
    `text`."""
    quote = text.find('"', at)
    while quote != -1:
        escapes = quote
        while escapes > at and text[escapes - 1] == "\\":
            escapes -= 1
        if (quote - escapes) % 2 == 0:
            return quote
        quote = text.find('"', quote + 1)
    return -1


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
