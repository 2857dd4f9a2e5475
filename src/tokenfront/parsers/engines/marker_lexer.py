"""Incremental marker lexer with prefix hold-back.

Splits text into literal marker terminals and plain text. Text that could still grow into a
marker (e.g. a trailing "</thi") is held in a buffer until the next chunk decides, exactly like
vLLM's parser-engine lexer; the buffer is a plain string so it can travel in stream state.
"""

from __future__ import annotations

from collections.abc import Iterable

CONTENT = ""  # terminal name of plain text pieces


class MarkerLexer:
    """Immutable lexer shape for one set of literals (name, literal)."""

    def __init__(self, literals: Iterable[tuple[str, str]]) -> None:
        self.literals: list[tuple[str, str]] = [(lit, name) for name, lit in literals if lit]
        self.first_chars = frozenset(lit[0] for lit, _ in self.literals)
        self.prefixes = frozenset(lit[:i] for lit, _ in self.literals for i in range(1, len(lit)))
        self.by_first: dict[str, list[tuple[str, str]]] = {}
        for lit, name in self.literals:
            self.by_first.setdefault(lit[0], []).append((lit, name))

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
        first_chars = self.first_chars
        while buf:
            if not any(ch in first_chars for ch in buf):
                tokens.append((CONTENT, buf))
                return tokens, ""
            best: tuple[str, str] | None = None
            for lit, name in self.by_first.get(buf[0], ()):
                if buf.startswith(lit) and (best is None or len(lit) > len(best[0])):
                    best = (lit, name)
            if not final and buf in self.prefixes:
                # Could still become a (longer) marker: wait for more text.
                return tokens, buf
            if best is not None:
                tokens.append((best[1], best[0]))
                buf = buf[len(best[0]) :]
                continue
            end = self._content_boundary(buf)
            tokens.append((CONTENT, buf[:end]))
            buf = buf[end:]
        return tokens, ""

    def _content_boundary(self, buf: str) -> int:
        n = len(buf)
        for i in range(1, n):
            if buf[i] not in self.first_chars:
                continue
            remaining = n - i
            for lit, _ in self.literals:
                k = min(remaining, len(lit))
                if buf[i : i + k] == lit[:k]:
                    return i
        return n
