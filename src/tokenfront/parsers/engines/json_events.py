"""An incremental JSON event scanner with a plain-dict state (resumable across stream chunks).

It reports the events of an ijson/yajl-style push parser: `(prefix, event, value)` where
`prefix` is the dotted path of the value (`""` at the top, `item` for array elements, the key
for object members), and `event` is one of `start_map`, `end_map`, `start_array`, `end_array`,
`map_key`, `string`, `number`, `boolean`, `null`. Like yajl, a string (or key) is reported when
its closing quote arrives, `true` / `false` / `null` at their last letter (a wrong letter fails
at once) and a number only once the character after it arrives (a character no number may
take next fails at once); a syntax error raises `JSONEventError` and leaves the scanner failed
for good. yajl's parser sees whole lexemes, so a string or literal where none may stand
(`{"unit""celsius"}`) fails once that lexeme is complete, not at its first character.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

JSONEvent = tuple[str, str, Any]

_WS = " \t\r\n"
_LITERAL_START = "-0123456789tfn"
_WORDS = {"t": "true", "f": "false", "n": "null"}
_DIGITS = "0123456789"
# JSON's number grammar as a state machine: state -> ((characters, next state), ...)
_NUMBER_STEPS: dict[str, tuple[tuple[str, str], ...]] = {
    "start": (("-", "sign"), ("0", "zero"), ("123456789", "int")),
    "sign": (("0", "zero"), ("123456789", "int")),
    "zero": ((".", "dot"), ("eE", "e")),
    "int": ((_DIGITS, "int"), (".", "dot"), ("eE", "e")),
    "dot": ((_DIGITS, "frac"),),
    "frac": ((_DIGITS, "frac"), ("eE", "e")),
    "e": (("+-", "esign"), (_DIGITS, "exp")),
    "esign": ((_DIGITS, "exp"),),
    "exp": ((_DIGITS, "exp"),),
}
_NUMBER_WHOLE = frozenset(("zero", "int", "frac", "exp"))


def _number_step(state: str, ch: str) -> str | None:
    for chars, after in _NUMBER_STEPS[state]:
        if ch in chars:
            return after
    return None


class JSONEventError(ValueError):
    pass


def new_scanner() -> dict[str, Any]:
    # frames: [kind ("map"|"array"), prefix, phase, key]
    return {"frames": [], "tok": None, "done": False, "failed": False}


def _join(prefix: str, part: str) -> str:
    return f"{prefix}.{part}" if prefix else part


def _value_prefix(st: dict[str, Any]) -> str:
    if not st["frames"]:
        return ""
    kind, prefix, _phase, key = st["frames"][-1]
    return _join(prefix, key if kind == "map" else "item")


def _expecting_value(st: dict[str, Any]) -> bool:
    if not st["frames"]:
        return not st["done"]
    kind, _prefix, phase, _key = st["frames"][-1]
    return phase == "value" or (kind == "array" and phase == "value_or_end")


def _value_done(st: dict[str, Any]) -> None:
    if not st["frames"]:
        st["done"] = True
    else:
        st["frames"][-1][2] = "comma_or_end"


def begun(st: dict[str, Any]) -> bool:
    """Whether the scanner has read anything but whitespace."""
    return bool(st["frames"]) or st["done"] or st["failed"] or st["tok"] is not None


def feed(st: dict[str, Any], text: str) -> list[JSONEvent]:
    """Scan more text; the events it completes, in order."""
    if st["failed"]:
        raise JSONEventError("scanner already failed")
    events: list[JSONEvent] = []
    try:
        for ch in text:
            _char(st, ch, events)
    except JSONEventError:
        st["failed"] = True
        raise
    return events


def _fail(msg: str) -> None:
    raise JSONEventError(msg)


def _misplaced(st: dict[str, Any], ch: str, msg: str) -> None:
    """A string or literal where the grammar allows none: it fails when complete (yajl)."""
    if ch == '"':
        st["tok"] = {"kind": "str", "buf": "", "esc": False, "key": False, "doomed": msg}
    elif ch in _LITERAL_START:
        st["tok"] = _literal(ch, msg)
    else:
        _fail(msg)


def _literal(ch: str, doomed: str | None = None) -> dict[str, Any]:
    word = _WORDS.get(ch)
    tok: dict[str, Any] = {"kind": "lit", "buf": ch, "word": word}
    if word is None:
        tok["num"] = _number_step("start", ch)
    if doomed is not None:
        tok["doomed"] = doomed
    return tok


def _finish_literal(st: dict[str, Any], events: list[JSONEvent]) -> None:
    if st["tok"].get("doomed"):
        _fail(st["tok"]["doomed"])
    raw = st["tok"]["buf"]
    st["tok"] = None
    try:
        value = json.loads(raw)  # the lexer let only whole words and numbers through
    except ValueError:  # an integer past Python's digit limit: yajl takes any length
        value = Decimal(raw)
    prefix = _value_prefix(st)
    if value is None:
        events.append((prefix, "null", None))
    elif isinstance(value, bool):
        events.append((prefix, "boolean", value))
    else:
        events.append((prefix, "number", value))
    _value_done(st)


def _char(st: dict[str, Any], ch: str, events: list[JSONEvent]) -> None:
    tok = st["tok"]
    if tok is not None and tok["kind"] == "str":
        if tok["esc"]:
            tok["esc"] = False
            tok["buf"] += ch
        elif ch == "\\":
            tok["esc"] = True
            tok["buf"] += ch
        elif ch == '"':
            st["tok"] = None
            if tok.get("doomed"):
                _fail(tok["doomed"])
            try:
                value = json.loads('"' + tok["buf"] + '"')
            except ValueError:
                _fail("invalid string")
            if tok["key"]:
                frame = st["frames"][-1]
                events.append((frame[1], "map_key", value))
                frame[3] = value
                frame[2] = "colon"
            else:
                events.append((_value_prefix(st), "string", value))
                _value_done(st)
        elif ord(ch) < 0x20:
            _fail("control character in string")
        else:
            tok["buf"] += ch
        return
    if tok is not None:
        word = tok["word"]
        if word is not None:
            # `true` / `false` / `null`: matched letter by letter, taken once whole (yajl)
            if ch != word[len(tok["buf"])]:
                _fail(f"invalid literal {tok['buf'] + ch!r}")
            tok["buf"] += ch
            if tok["buf"] == word:
                _finish_literal(st, events)
            return
        after = _number_step(tok["num"], ch)
        if after is not None:
            tok["buf"] += ch
            tok["num"] = after
            return
        if tok["num"] not in _NUMBER_WHOLE:  # `-`, `1.`, `1e` and no digit: yajl fails here
            _fail(f"malformed number {tok['buf'] + ch!r}")
        _finish_literal(st, events)  # a whole number ends; `ch` starts the next lexeme
    if ch in _WS:
        return
    frames = st["frames"]
    phase = frames[-1][2] if frames else None
    kind = frames[-1][0] if frames else None
    if _expecting_value(st):
        if ch == "{":
            prefix = _value_prefix(st)
            events.append((prefix, "start_map", None))
            frames.append(["map", prefix, "key_or_end", ""])
        elif ch == "[":
            prefix = _value_prefix(st)
            events.append((prefix, "start_array", None))
            frames.append(["array", prefix, "value_or_end", ""])
        elif ch == '"':
            st["tok"] = {"kind": "str", "buf": "", "esc": False, "key": False}
        elif ch in _LITERAL_START:
            st["tok"] = _literal(ch)
        elif ch == "]" and kind == "array" and phase == "value_or_end":
            closed = frames.pop()
            events.append((closed[1], "end_array", None))
            _value_done(st)
        else:
            _fail(f"unexpected {ch!r}")
        return
    if not frames:
        _misplaced(st, ch, "trailing garbage")
        return
    if kind == "map":
        if phase in ("key_or_end", "key") and ch == '"':
            st["tok"] = {"kind": "str", "buf": "", "esc": False, "key": True}
        elif phase in ("key_or_end", "comma_or_end") and ch == "}":
            closed = frames.pop()
            events.append((closed[1], "end_map", None))
            _value_done(st)
        elif phase == "colon" and ch == ":":
            frames[-1][2] = "value"
        elif phase == "comma_or_end" and ch == ",":
            frames[-1][2] = "key"
        else:
            _misplaced(st, ch, f"unexpected {ch!r} in object")
    else:
        if phase == "comma_or_end" and ch == "]":
            closed = frames.pop()
            events.append((closed[1], "end_array", None))
            _value_done(st)
        elif phase == "comma_or_end" and ch == ",":
            frames[-1][2] = "value"
        else:
            _misplaced(st, ch, f"unexpected {ch!r} in array")

