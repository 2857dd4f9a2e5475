"""JSON text cut back to its last completable point and closed by appending only.

`closeable(span)` reads `span` as one JSON value that may be truncated or broken (a lexical error
inside a token: an invalid escape, a control character in a string, a number that never becomes
valid, a key without value). It keeps the longest prefix that can be closed — after a complete
value, just after `{` / `[`, or inside a string value at a character boundary (never inside an
escape or a key) — and appends the quote and brackets that close it: `{"a": 1, "b": ` ->
`{"a": 1}`, `{"x": "lo` -> `{"x": "lo"}`, `{invalid}` -> `{}`. Text after a complete top-level
value is ignored.
"""

from __future__ import annotations

_ESCAPES = '"\\/bfnrt'
_HEX = "0123456789abcdefABCDEF"
_WS = " \t\r\n"


def _closers(stack: list[str]) -> str:
    return "".join("}" if c == "{" else "]" for c in reversed(stack))


def _string_end(span: str, i: int, on_char: list[int] | None) -> tuple[int, bool]:
    """From the opening quote at `i`: (index after the closing quote, True), or (index of the
    first character that cannot continue the string or len(span), False). `on_char` collects the
    character boundaries inside the string (cut points of a string value)."""
    j = i + 1
    n = len(span)
    if on_char is not None:
        on_char.append(j)
    while j < n:
        ch = span[j]
        if ch == '"':
            return j + 1, True
        if ch == "\\":
            if j + 1 >= n:
                return j, False
            esc = span[j + 1]
            if esc == "u":
                digits = span[j + 2 : j + 6]
                if len(digits) < 4 or any(d not in _HEX for d in digits):
                    return j, False
                j += 6
            elif esc in _ESCAPES:
                j += 2
            else:
                return j, False
        elif ord(ch) < 0x20:
            return j, False
        else:
            j += 1
        if on_char is not None:
            on_char.append(j)
    return j, False


def _number_end(span: str, i: int) -> tuple[int, list[int]]:
    """The end of the number starting at `i` and the ends of its valid prefixes."""
    n = len(span)
    j = i
    valid: list[int] = []
    if j < n and span[j] == "-":
        j += 1
    if j < n and span[j] == "0":
        j += 1
        valid.append(j)
    elif j < n and span[j].isdigit():
        while j < n and span[j].isdigit():
            j += 1
            valid.append(j)
    else:
        return j, valid
    if j < n and span[j] == ".":
        j += 1
        while j < n and span[j].isdigit():
            j += 1
            valid.append(j)
        if not span[j - 1].isdigit():
            return j, valid
    if j < n and span[j] in "eE":
        j += 1
        if j < n and span[j] in "+-":
            j += 1
        while j < n and span[j].isdigit():
            j += 1
            valid.append(j)
    return j, valid


def closeable(span: str) -> str:
    """`span` cut back to its last completable point plus the text that closes it ("" if none)."""
    stack: list[str] = []
    safe_end, safe_close = 0, ""
    expect = "value"
    i = 0
    n = len(span)
    while i < n:
        c = span[i]
        if c in _WS:
            i += 1
            continue
        if expect in ("value", "value_or_close"):
            if c == "]" and expect == "value_or_close":
                stack.pop()
                i += 1
            elif c in "{[":
                stack.append(c)
                i += 1
                safe_end, safe_close = i, _closers(stack)
                expect = "key_or_close" if c == "{" else "value_or_close"
                continue
            elif c == '"':
                cuts: list[int] = []
                end, done = _string_end(span, i, cuts)
                if not done:
                    if cuts:
                        safe_end, safe_close = cuts[-1], '"' + _closers(stack)
                    break
                i = end
            elif c == "-" or c.isdigit():
                end, valid = _number_end(span, i)
                if not valid:
                    break
                if valid[-1] != end:  # the number goes wrong after its last valid prefix
                    safe_end, safe_close = valid[-1], _closers(stack)
                    break
                i = end
                if i == n:  # a number cut off at the end may go on: keep its valid prefix
                    safe_end, safe_close = i, _closers(stack)
                    break
            else:
                word = next((w for w in ("true", "false", "null") if w[0] == c), None)
                if word is None or span[i : i + len(word)] != word:
                    break
                i += len(word)
            # a complete value
            safe_end, safe_close = i, _closers(stack)
            if not stack:
                break
            expect = "comma_or_close"
        elif expect in ("key", "key_or_close"):
            if c == "}" and expect == "key_or_close":
                stack.pop()
                i += 1
                safe_end, safe_close = i, _closers(stack)
                if not stack:
                    break
                expect = "comma_or_close"
            elif c == '"':
                end, done = _string_end(span, i, None)
                if not done:
                    break
                i = end
                expect = "colon"
            else:
                break
        elif expect == "colon":
            if c != ":":
                break
            i += 1
            expect = "value"
        else:  # comma_or_close
            top = stack[-1]
            if c == ",":
                i += 1
                expect = "key" if top == "{" else "value"
            elif (c == "}" and top == "{") or (c == "]" and top == "["):
                stack.pop()
                i += 1
                safe_end, safe_close = i, _closers(stack)
                if not stack:
                    break
            else:
                break
    return span[:safe_end] + safe_close
