"""The stable prefix of partial JSON arguments, shared by the streaming tool-call engines."""

from __future__ import annotations

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
