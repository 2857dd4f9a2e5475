"""Repairs that let near-Python call text parse with `ast` (lfm2's output).

Models in the lfm2 family write Python-call lists with raw control characters inside strings,
integers with leading zeros, Python keywords as parameter names and unescaped quotes nested in
strings. Each helper rewrites one of these into valid Python, as vLLM's parser accepts them;
`python_calls.WrappedPythonCallParser` applies them before parsing.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Callable, Iterator
from typing import Any

QUOTES = ("'", '"')
_CLOSER_FOLLOWERS = frozenset(",)]}:")
RESERVED_SUFFIX = "_pyreservedkw_"


def is_escaped(text: str, index: int) -> bool:
    count = 0
    index -= 1
    while index >= 0 and text[index] == "\\":
        count += 1
        index -= 1
    return count % 2 == 1


def escape_raw_controls(text: str) -> str:
    """Escape raw newline / CR / tab / NUL characters inside string literals."""
    out: list[str] = []
    quote: str | None = None
    i, n = 0, len(text)
    replacements = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\x00": "\\x00"}
    while i < n:
        ch = text[i]
        if quote is None:
            if ch in QUOTES:
                quote = ch
            out.append(ch)
        elif ch == "\\" and i + 1 < n:
            out.append(text[i : i + 2])
            i += 2
            continue
        elif ch == quote:
            quote = None
            out.append(ch)
        else:
            out.append(replacements.get(ch, ch))
        i += 1
    return "".join(out)


def _scan_code(text: str) -> list[tuple[str, str]]:
    """Split text into ("str", literal) and ("code", run) pieces (quotes tracked, escapes kept)."""
    pieces: list[tuple[str, str]] = []
    i, n, start = 0, len(text), 0
    while i < n:
        ch = text[i]
        if ch in QUOTES:
            if start < i:
                pieces.append(("code", text[start:i]))
            j = i + 1
            while j < n:
                if text[j] == "\\" and j + 1 < n:
                    j += 2
                    continue
                if text[j] == ch:
                    break
                j += 1
            end = min(j + 1, n)
            pieces.append(("str", text[i:end]))
            i = start = end
            continue
        i += 1
    if start < n:
        pieces.append(("code", text[start:]))
    return pieces


_ZERO_INT = re.compile(r"[^\W\d]\w*|\d[\d_]*")


def strip_leading_zero_ints(text: str) -> str:
    """`month=07` -> `month=7` outside strings (floats, exponents, `00`, `0x..` untouched)."""
    out: list[str] = []
    prev_char = ""
    for kind, piece in _scan_code(text):
        if kind == "str":
            out.append(piece)
            prev_char = piece[-1:]
            continue

        def fix(match: re.Match[str], piece: str = piece, prev_char: str = prev_char) -> str:
            token = match.group(0)
            if not token[0].isdigit():
                return token
            digits = token.replace("_", "")
            follower = piece[match.end() : match.end() + 1]
            before = piece[match.start() - 1] if match.start() > 0 else prev_char
            if (
                digits[0] == "0"
                and digits.strip("0")
                and before != "."
                and follower not in (".", "e", "E", "j", "J")
            ):
                return str(int(digits))
            return token

        out.append(_ZERO_INT.sub(fix, piece))
        prev_char = piece[-1:]
    return "".join(out)


def rename_keyword_params(text: str) -> tuple[str, bool]:
    """`f(from=1)` -> `f(from_pyreservedkw_=1)` so it parses; returns (text, changed)."""
    out: list[str] = []
    changed = False
    last_sig = ""
    for kind, piece in _scan_code(text):
        if kind == "str":
            out.append(piece)
            last_sig = piece[0]
            continue
        i, n = 0, len(piece)
        while i < n:
            ch = piece[i]
            if ch.isalpha() or ch == "_":
                j = i
                while j < n and (piece[j].isalnum() or piece[j] == "_"):
                    j += 1
                word = piece[i:j]
                k = j
                while k < n and piece[k].isspace():
                    k += 1
                is_kwarg = (
                    keyword.iskeyword(word)
                    and k < n
                    and piece[k] == "="
                    and piece[k + 1 : k + 2] != "="
                    and last_sig in ("(", ",")
                )
                out.append(word + RESERVED_SUFFIX if is_kwarg else word)
                changed = changed or is_kwarg
                last_sig = word[-1]
                i = j
                continue
            out.append(ch)
            if not ch.isspace():
                last_sig = ch
            i += 1
    return "".join(out), changed


def restore_keyword_params(arguments: dict[str, Any]) -> dict[str, Any]:
    restored: dict[str, Any] = {}
    for key, value in arguments.items():
        stem = key[: -len(RESERVED_SUFFIX)] if key.endswith(RESERVED_SUFFIX) else None
        restored[stem if stem and keyword.iskeyword(stem) else key] = value
    return restored


def _unescaped(text: str, start: int, quote: str) -> Iterator[int]:
    """Offsets (from `start` on) of `quote` characters no backslash escapes."""
    j = start
    while j < len(text):
        if text[j] == "\\":
            j += 2
            continue
        if text[j] == quote:
            yield j
        j += 1


# A broken string with more plausible closing quotes than this is left as it is (each
# candidate costs a full parse).
MAX_REQUOTE_CANDIDATES = 64


def _closes_here(text: str, pos: int) -> bool:
    k = pos + 1
    while k < len(text) and text[k].isspace():
        k += 1
    return k < len(text) and text[k] in _CLOSER_FOLLOWERS


def requote_nested(text: str, parses: Callable[[str], bool]) -> tuple[str, bool]:
    """Recover `cmd='sed -n '1,9p' f'`: the first broken string is re-closed at the one
    plausible closing quote that makes the whole text parse (`parses`; else unchanged)."""
    index = 0
    while index < len(text):
        ch = text[index]
        if ch not in QUOTES:
            index += 1
            continue
        first = next(_unescaped(text, index + 1, ch), -1)
        if first == -1:
            return text, False
        if _closes_here(text, first):
            index = first + 1
            continue
        closers = [j for j in _unescaped(text, index + 1, ch) if _closes_here(text, j)]
        if len(closers) > MAX_REQUOTE_CANDIDATES:
            return text, False
        winners: list[str] = []
        for close in closers:
            inner = "".join(
                "\\" + c if c == ch and not is_escaped(text, j) else c
                for j, c in enumerate(text[index + 1 : close], start=index + 1)
            )
            candidate = text[:index] + ch + inner + ch + text[close + 1 :]
            if parses(escape_raw_controls(candidate)):
                winners.append(candidate)
        if len(winners) == 1:
            return winners[0], True
        return text, False
    return text, False


def has_broken_string(text: str) -> bool:
    """Whether some string's first closing quote is not followed by `, ) ] } :`."""
    index = 0
    while index < len(text):
        ch = text[index]
        if ch == "\\":
            index += 2
            continue
        if ch not in QUOTES:
            index += 1
            continue
        j = index + 1
        close = -1
        while j < len(text):
            if text[j] == "\\":
                j += 2
                continue
            if text[j] == ch:
                close = j
                break
            j += 1
        if close == -1:
            return False
        if not _closes_here(text, close):
            return True
        index = close + 1
    return False
