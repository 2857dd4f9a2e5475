"""Incremental marker lexer with prefix hold-back.

Splits text into literal marker terminals and plain text. Text that could still grow into a
marker (e.g. a trailing "</thi") is held in a buffer until the next chunk decides, exactly like
vLLM's parser-engine lexer; the buffer is a plain string so it can travel in stream state.

The scan is one regex search per token (the leftmost place a whole literal starts) plus a
look at the last few characters for a partial marker, so plain text between markers is not
walked character by character in Python.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

CONTENT = ""  # terminal name of plain text pieces


class MarkerLexer:
    """Immutable lexer shape for one set of literals (name, literal)."""

    def __init__(self, literals: Iterable[tuple[str, str]]) -> None:
        self.literals: list[tuple[str, str]] = [(lit, name) for name, lit in literals if lit]
        self.first_chars = frozenset(lit[0] for lit, _ in self.literals)
        self.prefixes = frozenset(lit[:i] for lit, _ in self.literals for i in range(1, len(lit)))
        self.by_first: dict[str, list[tuple[str, str]]] = {}
        # A literal listed under several names is read as the first of them.
        self.names: dict[str, str] = {}
        for lit, name in self.literals:
            self.by_first.setdefault(lit[0], []).append((lit, name))
            self.names.setdefault(lit, name)
        # Where a whole literal starts (leftmost; longest first, so at one position the
        # longest literal that starts there wins), and the longest proper prefix any has.
        distinct = sorted(self.names, key=len, reverse=True)
        self.any_literal: re.Pattern[str] | None = (
            re.compile("|".join(map(re.escape, distinct))) if distinct else None
        )
        self.max_prefix = max((len(lit) - 1 for lit in distinct), default=0)

    def feed(self, buffer: str, text: str) -> tuple[list[tuple[str, str]], str]:
        """Lex `buffer + text`: the tokens that are decided and the new hold-back buffer."""
        return self._drain(buffer + text, final=False)

    def flush(self, buffer: str) -> list[tuple[str, str]]:
        """End of input: everything left, held prefixes become text."""
        tokens, rest = self._drain(buffer, final=True)
        if rest:
            tokens.append((CONTENT, rest))
        return tokens

    def _drain(self, buf: str, *, final: bool) -> tuple[list[tuple[str, str]], str]:
        tokens: list[tuple[str, str]] = []
        n = len(buf)
        finder = self.any_literal
        if not n or finder is None or self.first_chars.isdisjoint(buf):
            if n:
                tokens.append((CONTENT, buf))
            return tokens, ""
        # The first place where the rest of the text is a literal's proper prefix (a marker
        # that may still be completed by the next chunk).
        tail = self._partial_tail(buf, 0)
        prefixes, names = self.prefixes, self.names
        pos = 0
        while pos < n:
            if pos >= tail and not final and buf[pos:] in prefixes:
                # Could still become a (longer) marker: wait for more text.
                return tokens, buf[pos:]
            found = finder.search(buf, pos)
            at = n if found is None else found.start()
            if at == pos:
                # Alternatives are longest first: the longest literal that starts here.
                lit = found.group()  # type: ignore[union-attr]
                tokens.append((names[lit], lit))
                pos += len(lit)
                continue
            # Plain text up to the next literal or partial marker after `pos`.
            end = min(at, tail if tail > pos else self._partial_tail(buf, pos + 1))
            tokens.append((CONTENT, buf[pos:end]))
            pos = end
        return tokens, ""

    def _partial_tail(self, buf: str, start: int) -> int:
        """The smallest i >= start such that `buf[i:]` is a proper prefix of a literal, else
        len(buf)."""
        n = len(buf)
        prefixes = self.prefixes
        for i in range(max(start, n - self.max_prefix), n):
            if buf[i:] in prefixes:
                return i
        return n
