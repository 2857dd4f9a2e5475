"""Spelling a response template's delimiter patterns out as literal strings.

`beam`'s render-time grammar (`rtemplate_grammar`) can only frame a region whose opener and
closer are a small set of fixed strings. A delimiter given as `open` / `close` literals is one
already; a pattern is accepted when it is built from plain characters, the `\\n` / `\\r` / `\\t`
escapes and escaped punctuation, `(?:...)` groups, `|` alternatives and single `?` marks,
and expands to at most 16 strings. Two markers extend that: a `^` (kept as `START` in the
expansion, allowed only where the caller reads the pattern at the message start) and one
final `(?=...)` lookahead (kept as `AHEAD` followed by its text, allowed for the end of an
`xml-inline` value, which may stop where the next parameter opens).

Also here: the regex escaping the grammar's own regex nodes use, and the check whether a
call's framing could spell its closer (`spells_closer`), which would let the parser end a call
inside text the grammar lets through.
"""

from __future__ import annotations

from functools import lru_cache

import regex

from tokenfront.parsers.engines.rtemplate_spec import Field, Template

START = "\0"
AHEAD = "\1"
MAX_LITERALS = 16
_META = frozenset(".^$*+?{}[]\\|()")
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t"}
# Characters that need a backslash inside an xgrammar character class.
_CLASS_BLANKS = {" ": " ", "\t": r"\t", "\n": r"\n", "\r": r"\r"}


class _Rich(Exception):
    """The pattern is more than literals."""


def expand(pattern: str, *, message_start: bool = False, lookahead: bool = False) -> list[str] | None:
    """The strings `pattern` spells, or None. `^` is kept only with `message_start` (and then
    dropped from the front of each string; strings with it elsewhere are left out); a final
    lookahead only with `lookahead`."""
    try:
        strings, index = _branches(pattern, 0)
    except _Rich:
        return None
    if index != len(pattern):
        return None
    if any(text.count(AHEAD) > int(lookahead) for text in strings):
        return None
    if not message_start:
        return None if any(START in text for text in strings) else strings
    return [text[1:] if text.startswith(START) else text
            for text in strings if START not in text[1:] and text != START]


def _branches(pattern: str, index: int) -> tuple[list[str], int]:
    found: list[str] = []
    while True:
        branch, index = _concat(pattern, index)
        found.extend(branch)
        if not pattern.startswith("|", index):
            break
        index += 1
    found = list(dict.fromkeys(found))
    if len(found) > MAX_LITERALS:
        raise _Rich
    return found, index


def _atom(pattern: str, index: int) -> tuple[list[str], int]:
    if pattern.startswith("(?:", index) or pattern.startswith("(?=", index):
        inner, end = _branches(pattern, index + 3)
        if not pattern.startswith(")", end):
            raise _Rich
        if pattern[index + 2] == "=":
            inner = [AHEAD + text for text in inner]
        return inner, end + 1
    char = pattern[index]
    if char == "\\" and index + 1 < len(pattern):
        escaped = pattern[index + 1]
        if escaped.isalnum() and escaped not in _ESCAPES:
            raise _Rich
        return [_ESCAPES.get(escaped, escaped)], index + 2
    if char == "^":
        return [START], index + 1
    if char in _META:
        raise _Rich
    return [char], index + 1


def _concat(pattern: str, index: int) -> tuple[list[str], int]:
    strings = [""]
    while index < len(pattern) and pattern[index] not in "|)":
        atom, index = _atom(pattern, index)
        if pattern.startswith("?", index):
            atom = ["", *atom]
            index += 1
        if any(AHEAD in text for text in strings):  # nothing may follow a lookahead
            raise _Rich
        strings = [head + tail for head in strings for tail in atom]
        if len(strings) > MAX_LITERALS:
            raise _Rich
    return strings, index


# ---- template delimiters ---------------------------------------------------------------------
def anchors(template: Template) -> list[str]:
    """The message-start anchors as strings ([] when the pattern is richer)."""
    if template.anchor.literals is not None:
        return list(template.anchor.literals)
    return expand(template.anchor.pattern.pattern) or []


def closers(field: Field) -> list[str] | None:
    """A field's closers: [] without one, None when a pattern cannot be spelled out."""
    if field.closer is None:
        return []
    if field.closer.literals:
        return list(field.closer.literals)
    return expand(field.closer.pattern.pattern)


def openers(field: Field, message_start: list[str] | None = None) -> list[str] | None:
    """A field's openers, plus their parts after a message-start anchor where the parser finds
    the opener there (a prompt ending at the anchor leaves only that part to the output)."""
    if field.opener is None:
        return None
    if field.opener.literals:
        found: list[str] | None = list(field.opener.literals)
    else:
        found = expand(field.opener.pattern.pattern, message_start=message_start is not None)
    return with_anchor_rests(found, message_start, field.opener.pattern)


def with_anchor_rests(found: list[str] | None, starts: list[str] | None, pattern: regex.Pattern) -> list[str] | None:
    if not found or not starts:
        return found
    rests = [
        text[len(anchor):] for text in found for anchor in starts
        if len(text) > len(anchor) and text.startswith(anchor)
    ]
    rests = [rest for rest in rests if any(pattern.fullmatch(rest, pos) for pos in range(len(rest)))]
    return list(dict.fromkeys([*found, *rests]))


# ---- regex text for grammar nodes ------------------------------------------------------------
def escape(text: str) -> str:
    """Backslash every regex metacharacter (and nothing else)."""
    return "".join("\\" + char if char in _META else char for char in text)


def class_char(char: str) -> str:
    if char in _CLASS_BLANKS:
        return _CLASS_BLANKS[char]
    return "\\" + char if char in "\\]^-[" else char


def split_group(pattern: str, name: str) -> tuple[str, str, str] | None:
    """(before, body, after) of the named group `name` in a regex source."""
    head = f"(?P<{name}>"
    begin = pattern.find(head)
    if begin < 0:
        return None
    depth, in_class, index = 0, False, begin
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return pattern[:begin], pattern[begin + len(head):index], pattern[index + 1:]
        index += 1
    return None


# ---- could the framing of a call spell its closer? -------------------------------------------
Piece = tuple[str, str, bool]  # (regex of the piece, regex of its possible endings, may hold a closer)

TEXT_PIECE: Piece = (r"[\s\S]*", r"[\s\S]+", False)
JSON_OUTSIDE_STRINGS = frozenset(' \t\n\r{}[],:"-+.0123456789eEtrufalsn')
JSON_PIECE: Piece = (
    r"[\s\S]*",
    r"[\s\S]*[" + "".join(regex.escape(char) for char in sorted(JSON_OUTSIDE_STRINGS)) + "]",
    False,
)


@lru_cache(maxsize=512)
def suffixes(literals: tuple[str, ...]) -> str:
    """A regex of every non-empty suffix of the literals."""
    return "|".join(regex.escape(text[cut:]) for text in literals for cut in range(len(text)))


def literal_piece(literals: list[str], before: str = "") -> Piece:
    either = before + "(?:" + "|".join(regex.escape(text) for text in literals) + ")"
    return either, f"{either}|{suffixes(tuple(literals))}", True


@lru_cache(maxsize=512)
def spells_closer(closers: tuple[str, ...], pieces: tuple[Piece, ...], *, repeats: bool = False) -> bool:
    """Whether a closer can appear inside one piece, or start in one and end in what follows."""
    texts = [text for text, _, _ in pieces]
    loop = f"(?:{''.join(texts)})*" if repeats else ""
    after_close = "(?:" + "|".join(regex.escape(closer) for closer in closers) + r")[\s\S]*"
    for index, (_, endings, holds) in enumerate(pieces):
        ending = regex.compile(endings)
        rest = regex.compile("".join(texts[index + 1:]) + loop + after_close, regex.DOTALL)
        for closer in closers:
            if holds and ending.fullmatch(closer, partial=True):
                return True
            for cut in range(1, len(closer)):
                if ending.fullmatch(closer[:cut]) and rest.fullmatch(closer[cut:], partial=True):
                    return True
    return False
