"""Streaming lexing for markup grammars: special-token scanning plus literal terminals.

Two stages turn a streamed `(delta_text, delta_ids)` pair into terminal tokens:

* the token scanner recognises marker tokens by id (a marker typed out as plain text is then
  not a marker) and drops special tokens the grammar does not use;
* the literal lexer splits text into terminal literals and content, holding back a tail that
  could still grow into a literal.

Both keep their state in plain dicts (strings, ints, lists) so it can travel in `stream_state`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

CONTENT = "__CONTENT__"
DROP = "__DROP__"


@dataclass(frozen=True)
class Lexeme:
    terminal: str  # CONTENT for plain text
    text: str


@dataclass(frozen=True)
class Marker:
    """A terminal recognised by its token id."""

    terminal: str
    text: str


@dataclass(frozen=True)
class Text:
    """Plain text for the literal lexer; `tokens` carries the decoded pieces, `count` the ids."""

    text: str
    tokens: tuple[str, ...] = ()
    count: int = 0


ScanItem = Marker | Text


class LiteralTable:
    """The literal terminals of a grammar, indexed for prefix matching."""

    def __init__(self, literals: Iterable[tuple[str, str]]) -> None:
        # (literal, terminal); longer literals first so ties resolve the same way every time.
        pairs = sorted({(lit, name) for name, lit in literals if lit}, key=lambda p: -len(p[0]))
        self.pairs = pairs
        self.first_chars = frozenset(lit[0] for lit, _ in pairs)
        self.by_first: dict[str, list[tuple[str, str]]] = {}
        for lit, name in pairs:
            self.by_first.setdefault(lit[0], []).append((lit, name))
        self.prefixes = frozenset(lit[:i] for lit, _ in pairs for i in range(1, len(lit)))
        self.longest = max((len(lit) for lit, _ in pairs), default=0)
        chars = "".join(map(re.escape, sorted(self.first_chars)))
        self._starts = re.compile(f"[{chars}]") if chars else None

    def longest_at(self, text: str, pos: int) -> tuple[str, str] | None:
        """The longest literal starting at `pos` (with its terminal)."""
        best: tuple[str, str] | None = None
        for lit, name in self.by_first.get(text[pos : pos + 1], ()):
            if text.startswith(lit, pos) and (best is None or len(lit) > len(best[0])):
                best = (lit, name)
        return best

    def next_start(self, text: str, pos: int) -> int:
        """The first offset at or after `pos` holding a literal's first character (or -1)."""
        if self._starts is None:
            return -1
        m = self._starts.search(text, pos)
        return m.start() if m else -1

    def content_end(self, text: str, pos: int) -> int:
        """Where plain text from `pos` stops: the first later offset that could start a
        literal (one that starts there, or that the text's end is a prefix of)."""
        at = self.next_start(text, pos + 1)
        while at != -1:
            tail = len(text) - at
            for lit, _ in self.by_first[text[at]]:
                if text.startswith(lit, at) if tail >= len(lit) else lit.startswith(text[at:]):
                    return at
            at = self.next_start(text, at + 1)
        return len(text)


def lex(
    table: LiteralTable, state: dict[str, Any], text: str, *, final: bool = False
) -> list[Lexeme]:
    """Feed text to the literal lexer; `state["buf"]` holds the undecided tail."""
    if not state.get("buf") and not final and table.first_chars.isdisjoint(text):
        return [Lexeme(CONTENT, text)]
    buffer = state.get("buf", "") + text
    out: list[Lexeme] = []
    pos, n = 0, len(buffer)
    while pos < n:
        if table.next_start(buffer, pos) == -1:
            out.append(Lexeme(CONTENT, buffer[pos:]))
            pos = n
            break
        best = table.longest_at(buffer, pos)
        if not final and n - pos < table.longest and buffer[pos:] in table.prefixes:
            if best is None:
                break
            rest = buffer[pos:]
            if any(
                len(lit) > len(best[0]) and lit.startswith(rest)
                for lit, _ in table.by_first.get(rest[0], ())
            ):
                break
        if best is not None:
            out.append(Lexeme(best[1], best[0]))
            pos += len(best[0])
            continue
        end = table.content_end(buffer, pos)
        out.append(Lexeme(CONTENT, buffer[pos:end]))
        pos = end
    state["buf"] = buffer[pos:]
    return out


def flush_lexer(table: LiteralTable, state: dict[str, Any]) -> list[Lexeme]:
    if not state.get("buf"):
        return []
    out = lex(table, state, "", final=True)
    if state.get("buf"):
        out.append(Lexeme(CONTENT, state["buf"]))
        state["buf"] = ""
    return out


class TokenScanner:
    """Splits a delta at marker token ids; deferred markers wait in the state dict.

    State keys: `dt` deferred markers `[[terminal, text], ...]`, `dc` the token count before
    each, `dn` trailing token count, `dp` text held until the deferred marker's text arrives.
    """

    def __init__(self, id_terminals: dict[int, str], tokenizer: Any) -> None:
        self.id_terminals = id_terminals
        self.tokenizer = tokenizer
        self._texts: dict[int, str] = {}

    def token_text(self, token_id: int) -> str:
        text = self._texts.get(token_id)
        if text is None:
            decoded = self.tokenizer.decode([token_id]) if self.tokenizer is not None else ""
            text = decoded if isinstance(decoded, str) else ""
            self._texts[token_id] = text
        return text

    @staticmethod
    def has_deferred(state: dict[str, Any]) -> bool:
        return bool(state.get("dt"))

    def scan(
        self, state: dict[str, Any], delta_text: str, delta_ids: Sequence[int]
    ) -> list[ScanItem]:
        prefix: list[ScanItem] = []
        text = delta_text
        trailing = 0
        if state.get("dt"):
            prefix, text, trailing = self._resolve_deferred(state, delta_text, len(delta_ids))
        if not self.id_terminals or not any(t in self.id_terminals for t in delta_ids):
            if text:
                pieces = tuple(self.token_text(t) for t in delta_ids) if self.tokenizer else ()
                prefix.append(Text(text, pieces, (trailing if prefix else 0) + len(pieces)))
            return prefix

        items: list[ScanItem] = []
        pending: list[str] = []
        for token_id in delta_ids:
            piece = self.token_text(token_id)
            terminal = self.id_terminals.get(token_id)
            if terminal is None:
                pending.append(piece)
                continue
            if pending and "".join(pending):
                items.append(Text("".join(pending), tuple(pending), len(pending)))
            pending = []
            items.append(Marker(terminal, piece))
        if pending and "".join(pending):
            items.append(Text("".join(pending), tuple(pending), len(pending)))
        if trailing:
            items.insert(0, Text("", (), trailing))

        if text:
            items = self._recover_holdback(state, text, items)
        else:
            # No text to anchor on yet: hold the markers until their text arrives.
            count = 0
            for item in items:
                if isinstance(item, Text):
                    count += item.count
                else:
                    state.setdefault("dt", []).append([item.terminal, item.text])
                    state.setdefault("dc", []).append(count)
                    count = 0
            state["dn"] = state.get("dn", 0) + count
            items = []
        return prefix + items

    def flush(self, state: dict[str, Any]) -> list[ScanItem]:
        deferred = state.get("dt") or []
        post = state.get("dp", "")
        if not deferred and not post:
            return []
        out: list[ScanItem] = []
        if post:
            counts = state.get("dc") or [0]
            out.append(Text(post, (), counts[0]))
        out.extend(Marker(t, x) for t, x in deferred)
        if state.get("dn"):
            out.append(Text("", (), state["dn"]))
        for key in ("dt", "dc", "dn", "dp"):
            state.pop(key, None)
        return out

    def _resolve_deferred(
        self, state: dict[str, Any], delta_text: str, delta_count: int
    ) -> tuple[list[ScanItem], str, int]:
        deferred: list[list[str]] = state.pop("dt", [])
        counts: list[int] = state.pop("dc", [])
        trailing: int = state.pop("dn", 0)
        remaining = state.pop("dp", "") + delta_text
        out: list[ScanItem] = []
        still: list[list[str]] = []
        still_counts: list[int] = []
        post = ""
        for (terminal, marker_text), count in zip(deferred, counts, strict=False):
            pos = remaining.find(marker_text)
            if pos > 0:
                out.append(Text(remaining[:pos], (), count))
                out.append(Marker(terminal, marker_text))
                remaining = remaining[pos + len(marker_text) :]
            elif pos == 0:
                out.append(Marker(terminal, marker_text))
                remaining = remaining[len(marker_text) :]
            else:
                if remaining:
                    post += remaining
                    count += delta_count
                    remaining = ""
                still.append([terminal, marker_text])
                still_counts.append(count)
        if post:
            state["dp"] = post
        if still:
            state["dt"] = still
            state["dc"] = still_counts
            state["dn"] = trailing
            trailing = 0
        return out, remaining, trailing

    def _recover_holdback(
        self, state: dict[str, Any], delta_text: str, items: list[ScanItem]
    ) -> list[ScanItem]:
        """Align per-token decodes with the detokenizer's text (which may carry held-back text)."""
        if not items:
            return [Text(delta_text)]
        rebuilt = "".join(item.text for item in items)
        if not rebuilt:
            return [Text(delta_text), *items]
        pos = delta_text.find(rebuilt)
        if pos > 0:
            return [Text(delta_text[:pos]), *items]
        if pos == 0:
            return items
        return self._rebuild_from_markers(state, delta_text, items)

    def _rebuild_from_markers(
        self, state: dict[str, Any], delta_text: str, items: list[ScanItem]
    ) -> list[ScanItem]:
        markers = [item for item in items if isinstance(item, Marker)]
        if not markers:
            return [Text(delta_text)]
        groups: list[list[str]] = [[] for _ in range(len(markers) + 1)]
        group_counts = [0] * (len(markers) + 1)
        g = 0
        for item in items:
            if isinstance(item, Marker):
                g += 1
            else:
                groups[g].extend(item.tokens)
                group_counts[g] += item.count
        # Bind each marker to its rightmost occurrence before the next marker.
        positions = [-1] * len(markers)
        end = len(delta_text)
        for i in range(len(markers) - 1, -1, -1):
            pos = delta_text.rfind(markers[i].text, 0, end)
            if pos >= 0:
                positions[i] = pos
                end = pos
        out: list[ScanItem] = []
        consumed = 0
        for i, marker in enumerate(markers):
            pos = positions[i]
            if pos >= consumed:
                if pos > consumed:
                    out.append(Text(delta_text[consumed:pos], tuple(groups[i]), group_counts[i]))
                out.append(marker)
                consumed = pos + len(marker.text)
                continue
            later = any(p >= 0 for p in positions[i + 1 :])
            if not later and consumed < len(delta_text) and marker.terminal != DROP:
                state["dp"] = state.get("dp", "") + delta_text[consumed:]
                consumed = len(delta_text)
            state.setdefault("dt", []).append([marker.terminal, marker.text])
            state.setdefault("dc", []).append(group_counts[i])
        if consumed < len(delta_text):
            out.append(Text(delta_text[consumed:], tuple(groups[-1]), group_counts[-1]))
        return out
