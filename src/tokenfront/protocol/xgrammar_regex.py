"""Whether xgrammar 0.2.8's regex-to-grammar converter accepts a pattern (an approximation,
checked against xgrammar on the recorded table of tests/protocol/data/structural_tag_verdicts.json):
the regex of a structural tag's `regex` format."""

from __future__ import annotations

import re

_REPEAT = re.compile(r"\{(\d+)(?:(,)(\d*))?\}")
_NAMED_GROUP = re.compile(r"\?<[A-Za-z_][A-Za-z0-9_]*>")
_CLASS_ESCAPES = frozenset("dDwWsS")
_BRACED_CODE_POINT = re.compile(r"\{([0-9A-Fa-f]{1,6})\}")
_HEX_DIGITS = {"u": re.compile("[0-9A-Fa-f]{4}"), "x": re.compile("[0-9A-Fa-f]{2}")}


def regex_error(pattern: str) -> str | None:
    """Why xgrammar's regex converter refuses `pattern` (approximation), or None."""
    i, n = 0, len(pattern)
    depth = 0  # open groups
    last_is_atom = False
    while i < n:
        c = pattern[i]
        if c in "^$":
            i += 1  # anchors are ignored (a following quantifier applies to the atom before)
            continue
        if c == "[":
            error, i = _regex_class(pattern, i)
            if error:
                return error
        elif c == "\\":
            error, i, _ = _regex_escape(pattern, i, in_class=False)
            if error:
                return error
        elif c in "*+?{":
            if not last_is_atom:
                return "repetition modifier has no preceding atom"
            if c == "{":
                m = _REPEAT.match(pattern, i)
                if m is None:
                    return "invalid repetition range"
                if m.group(3) and int(m.group(3)) < int(m.group(1)):
                    return "repetition upper bound is smaller than its lower bound"
                i = m.end()
            else:
                i += 1
            if i < n and pattern[i] == "?":
                i += 1  # lazy
            if i < n and pattern[i] in "*+?{":
                return "two consecutive repetition modifiers are not allowed"
            last_is_atom = False
            continue
        elif c == "|":
            i += 1
            last_is_atom = False
            continue
        elif c == "(":
            i += 1
            if pattern.startswith("?:", i):
                i += 2
            elif pattern.startswith("?", i):
                m = _NAMED_GROUP.match(pattern, i)
                if m is None:
                    return "assertions and group flags are not supported"
                i = m.end()
            depth += 1
            last_is_atom = False
            continue
        elif c == ")":
            if not depth:
                return "unmatched ')'"
            i += 1
            depth -= 1
            last_is_atom = True
            continue
        else:
            i += 1
        last_is_atom = True
    if depth:
        return "unclosed '('"
    return None


def _regex_class(pattern: str, i: int) -> tuple[str | None, int]:
    """A character class at `pattern[i] == '['`: (error, index after it)."""
    i += 1
    n = len(pattern)
    if i < n and pattern[i] == "^":
        i += 1
    items = int(pattern[i - 1] == "^")  # "[^]" is accepted, "[]" is not
    while i < n and pattern[i] != "]":
        error, i, low = _regex_unit(pattern, i)
        if error:
            return error, i
        items += 1
        if low is not None and i + 1 < n and pattern[i] == "-" and pattern[i + 1] != "]":
            error, i, high = _regex_unit(pattern, i + 1)
            if error:
                return error, i
            if high is not None and low > high:
                return "character-class range start exceeds its end", i
    if i >= n:
        return "unclosed '['", i
    if not items:
        return "empty character class is not allowed", i
    return None, i + 1


def _regex_unit(pattern: str, i: int) -> tuple[str | None, int, int | None]:
    """One class member: (error, next index, its code point or None for a class escape)."""
    if pattern[i] == "\\":
        return _regex_escape(pattern, i, in_class=True)
    return None, i + 1, ord(pattern[i])


_SIMPLE_ESCAPES = {"n": 10, "r": 13, "t": 9, "f": 12, "v": 11, "0": 0, "a": 7, "e": 27}


def _regex_escape(pattern: str, i: int, *, in_class: bool) -> tuple[str | None, int, int | None]:
    """An escape at `pattern[i] == '\\'`: (error, next index, code point or None for a set)."""
    left = len(pattern) - i
    e = pattern[i + 1] if left > 1 else ""
    if left < {"u": 6, "x": 4, "c": 3}.get(e, 2):
        return "Escape sequence is not finished.", i, None
    if e in _CLASS_ESCAPES:
        return None, i + 2, None
    if e in "pP":
        return "Unicode character class escape sequence is not supported yet.", i, None
    if e in "123456789k":
        return "Backreference is not supported yet.", i, None
    if e in "bB" and not in_class:
        return "Word boundary is not supported yet.", i, None
    if e == "u" and pattern.startswith("{", i + 2):
        m = _BRACED_CODE_POINT.match(pattern, i + 2)
        if m is None:
            return "Invalid Unicode escape sequence.", i, None
        return None, m.end(), int(m.group(1), 16)
    if e in _HEX_DIGITS:  # a malformed one matches the letter itself
        m = _HEX_DIGITS[e].match(pattern, i + 2)
        if m is not None:
            return None, m.end(), int(m.group(0), 16)
    if e == "c":
        if i + 2 >= len(pattern) or not pattern[i + 2].isascii() or not pattern[i + 2].isalpha():
            return "Invalid control character escape sequence.", i, None
        return None, i + 3, ord(pattern[i + 2]) % 32
    return None, i + 2, _SIMPLE_ESCAPES.get(e, ord(e))
