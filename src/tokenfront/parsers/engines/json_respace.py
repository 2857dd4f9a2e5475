"""JSON text respaced while it streams, the way `json.dumps` separates it.

One-shot Harmony tool calls re-serialise valid JSON arguments with `json.dumps` defaults: no
whitespace except one space after each `:` and `,`. A stream can match that for the spacing
without holding text back: whitespace outside strings is dropped, and the space a separator
owes is sent with the first whitespace after it (as written) or in front of the next value.
Everything else (strings, numbers, literals) streams as written, so canonically spaced text
streams byte for byte and chunk for chunk as it came.

The text is checked against the JSON grammar on the way. From the first character that cannot
continue JSON (text that one-shot keeps raw because it does not parse) the rest streams as
written, and the whitespace seen since the last kept character is sent first; only whitespace
dropped before that point is lost. `finish` returns the held whitespace when the text ends
while the value is still open (truncated arguments, which one-shot keeps raw too).

The state is a small JSON-serialisable dict (`new_respace`).
"""

from __future__ import annotations

import re
from typing import Any

_WS = frozenset(" \t\n\r")
_LITERAL_START = frozenset("-0123456789tfnNI")
_LITERAL_CHARS = frozenset("0123456789+-.eEtruefalsnNIiy")
_LITERAL = re.compile(
    r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|NaN|-?Infinity"
)
# A run of string characters that needs no attention (no quote, backslash or control char).
_STRING_RUN = re.compile(r'[^"\\\x00-\x1f]+')


def new_respace() -> dict[str, Any]:
    """State before the first character of a JSON value."""
    return {
        "raw": False,  # text no longer reads as JSON: everything streams as written
        "stack": "",  # open containers, "{" / "["
        "phase": "value",  # value, value_or_end, key, key_or_end, colon, comma_or_end, end
        "str": 0,  # 0 outside a string, 1 inside, 2 after a backslash inside
        "key": False,  # the open string is an object key
        "lit": "",  # the number / literal being read
        "held": "",  # whitespace since the last kept character, not sent
        "owed": False,  # a separator's space is still to be sent
    }


def respace(st: dict[str, Any], text: str) -> str:
    """The respaced form of `text`, the next piece of the value."""
    if st["raw"]:
        return text
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        if st["raw"]:
            out.append(text[i:])
            break
        ch = text[i]
        if st["str"]:
            i = _string(st, text, i, out)
            continue
        i += 1
        if st["lit"]:
            if ch in _LITERAL_CHARS:
                st["lit"] += ch
                out.append(ch)
                continue
            if not _LITERAL.fullmatch(st["lit"]):
                _to_raw(st, ch, out)
                continue
            st["lit"] = ""
            _value_done(st)
        if ch in _WS:
            if st["owed"] and not st["held"] and ch == " ":
                st["owed"] = False
                out.append(ch)
            else:
                st["held"] += ch
            continue
        if not _structural(st, ch):
            _to_raw(st, ch, out)
            continue
        if st["owed"] and ch not in ",:":
            out.append(" ")
        st["owed"] = ch in ",:"
        st["held"] = ""
        out.append(ch)
    return "".join(out)


def finish(st: dict[str, Any]) -> str:
    """Text still due when the value's text ends: the held whitespace of an unfinished value."""
    held, st["held"] = st["held"], ""
    if st["raw"] or st["str"] or st["stack"]:
        return held
    if st["phase"] == "end" or (st["lit"] and _LITERAL.fullmatch(st["lit"])):
        return ""
    return held


def _string(st: dict[str, Any], text: str, i: int, out: list[str]) -> int:
    if st["str"] == 2:
        st["str"] = 1
        out.append(text[i])
        return i + 1
    run = _STRING_RUN.match(text, i)
    if run is not None:
        out.append(run.group())
        return run.end()
    ch = text[i]
    if ch == "\\":
        st["str"] = 2
    elif ch == '"':
        st["str"] = 0
        if st["key"]:
            st["key"] = False
            st["phase"] = "colon"
        else:
            _value_done(st)
    else:  # a raw control character: json.loads rejects it, one-shot keeps the text raw
        st["raw"] = True
    out.append(ch)
    return i + 1


def _to_raw(st: dict[str, Any], ch: str, out: list[str]) -> None:
    st["raw"] = True
    out.append(st["held"])
    out.append(ch)
    st["held"] = ""


def _value_done(st: dict[str, Any]) -> None:
    st["phase"] = "comma_or_end" if st["stack"] else "end"


def _close(st: dict[str, Any]) -> None:
    """The open container's closing bracket."""
    st["stack"] = st["stack"][:-1]
    _value_done(st)


def _structural(st: dict[str, Any], ch: str) -> bool:
    """Apply a non-whitespace character outside strings and literals; False if not JSON."""
    phase = st["phase"]
    top = st["stack"][-1:] if st["stack"] else ""
    if phase in ("value", "value_or_end"):
        if ch == "{":
            st["stack"] += "{"
            st["phase"] = "key_or_end"
        elif ch == "[":
            st["stack"] += "["
            st["phase"] = "value_or_end"
        elif ch == '"':
            st["str"] = 1
        elif ch in _LITERAL_START:
            st["lit"] = ch
        elif ch == "]" and phase == "value_or_end":
            _close(st)
        else:
            return False
        return True
    if phase in ("key", "key_or_end"):
        if ch == '"':
            st["str"] = 1
            st["key"] = True
        elif ch == "}" and phase == "key_or_end":
            _close(st)
        else:
            return False
        return True
    if phase == "colon":
        if ch != ":":
            return False
        st["phase"] = "value"
        return True
    if phase == "comma_or_end":
        if ch == ",":
            st["phase"] = "key" if top == "{" else "value"
        elif ch == ("}" if top == "{" else "]"):
            _close(st)
        else:
            return False
        return True
    return False
