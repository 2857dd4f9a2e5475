"""Streaming lexing for markup grammars: special-token scanning plus literal terminals.

Two stages turn a streamed `(delta_text, delta_ids)` pair into terminal tokens:

* the token scanner recognises marker tokens by id (a marker typed out as plain text is then
  not a marker) and drops special tokens the grammar does not use;
* the literal lexer (`LiteralTable`) splits text into terminal literals and content, holding
  back a tail that could still grow into a literal; the reasoning grammar and Mistral v11
  use it alone.

Both keep their state in plain dicts (strings, ints, lists) so it can travel in `stream_state`.
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from tokenfront.tokenization.vocab import vocab_size

CONTENT = "__CONTENT__"
DROP = "__DROP__"


# (terminal, text); the terminal is CONTENT for plain text. A plain tuple: lexing makes one
# per marker and text run, on every derender.
Lexeme = tuple[str, str]


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
    """The literal terminals of a grammar and the lexer over them.

    The lexer splits text into literals and plain text. At each offset the longest literal
    starting there wins; plain text runs to the next offset where a literal starts, or where
    the rest of the text is a literal's proper prefix. Such a tail (a trailing `</thi`) is held
    back until more text decides it; the held text is a plain string, so it can travel in
    stream state. One regex search finds the next whole literal, so plain text is not walked
    character by character in Python.
    """

    def __init__(self, literals: Iterable[tuple[str, str]]) -> None:
        # literal -> terminal; a literal listed under several terminals reads as the first.
        names: dict[str, str] = {}
        for name, lit in literals:
            if lit:
                names.setdefault(lit, name)
        self.names = names
        self.first_chars = frozenset(lit[0] for lit in names)
        self.prefixes = frozenset(lit[:i] for lit in names for i in range(1, len(lit)))
        self.max_prefix = max((len(lit) - 1 for lit in names), default=0)
        # Alternatives longest first: at the leftmost offset a literal starts, the longest wins.
        by_length = sorted(names, key=len, reverse=True)
        self._any_literal = re.compile("|".join(map(re.escape, by_length))) if names else None

    def feed(self, buffer: str, text: str) -> tuple[list[Lexeme], str]:
        """Lex `buffer + text`: the lexemes that are decided and the new held-back tail."""
        return self._drain(buffer + text, final=False)

    def flush(self, buffer: str) -> list[Lexeme]:
        """The end of the input: everything left (a tail that was held is plain text now)."""
        return self._drain(buffer, final=True)[0]

    def _drain(self, buf: str, *, final: bool) -> tuple[list[Lexeme], str]:
        out: list[Lexeme] = []
        n = len(buf)
        finder = self._any_literal
        if not n or finder is None or self.first_chars.isdisjoint(buf):
            if n:
                out.append((CONTENT, buf))
            return out, ""
        tail = self._partial_tail(buf, 0)
        prefixes, names = self.prefixes, self.names
        pos = 0
        while pos < n:
            if pos >= tail and not final and buf[pos:] in prefixes:
                return out, buf[pos:]  # may still grow into a (longer) literal
            found = finder.search(buf, pos)
            at = n if found is None else found.start()
            if at == pos:
                lit = found.group()  # type: ignore[union-attr]
                out.append((names[lit], lit))
                pos += len(lit)
                continue
            end = min(at, tail if tail > pos else self._partial_tail(buf, pos + 1))
            out.append((CONTENT, buf[pos:end]))
            pos = end
        return out, ""

    def _partial_tail(self, buf: str, start: int) -> int:
        """The first offset >= `start` from which `buf` is a literal's proper prefix, else
        len(buf)."""
        n = len(buf)
        for i in range(max(start, n - self.max_prefix), n):
            if buf[i:] in self.prefixes:
                return i
        return n


class ScannerDecoding:
    """vLLM's engine parsers decode a delta's ids one by one unless the plain-text fast path
    takes the delta: text, nothing held back, no literal's first character and no id the
    scanner lexes by id. An id the tokenizer cannot decode (negative, or past 32 bits) then
    fails the chunk. Text-level engines call `check` to fail the same chunks."""

    def __init__(self, tokenizer: Any, table: LiteralTable) -> None:
        self.tokenizer = tokenizer
        self.table = table
        self.vocab_size = vocab_size(tokenizer)

    @cached_property
    def scanned_ids(self) -> frozenset[int]:
        """The literals that are one vocabulary entry each (looked up on the first chunk that
        needs them: parsers are built per chunk)."""
        from tokenfront.tokenization.vocab import token_lookup

        vocab = token_lookup(self.tokenizer)
        return frozenset(vocab[lit] for lit in self.table.names if lit in vocab)

    def check(self, held: str, delta_text: str, delta_ids: Sequence[int]) -> None:
        if not out_of_vocabulary(delta_ids, self.vocab_size):
            return
        if any(tid in self.scanned_ids for tid in delta_ids) or (
            delta_text and (held or not self.table.first_chars.isdisjoint(delta_text))
        ):
            for tid in delta_ids:
                if not 0 <= tid < self.vocab_size:
                    self.tokenizer.decode([tid])


def out_of_vocabulary(ids: Sequence[int], vocab_size: int) -> bool:
    """Whether any id is negative or past the vocabulary (the only ones decoding may fail)."""
    return bool(ids) and (min(ids) < 0 or max(ids) >= vocab_size)


def lex_kept_text(
    table: LiteralTable,
    state: dict[str, Any],
    text: str,
    *,
    final: bool,
    dropped: Container[str],
) -> str:
    """Streamed text that a request without tool parsing keeps, lexed as vLLM's engine still
    lexes it: a tail that may become a marker waits in `state["kh"]` until more text (or the
    end) decides it, and lexemes named in `dropped` (stray special tokens, a repeated
    `</think>`) are removed."""
    held = state.get("kh", "")
    if final:
        lexemes, state["kh"] = table.flush(held + text), ""
    else:
        lexemes, state["kh"] = table.feed(held, text)
    return "".join(value for name, value in lexemes if name not in dropped)


def lex_kept_think_blocks(
    table: LiteralTable,
    state: dict[str, Any],
    text: str,
    *,
    final: bool,
    dropped: Container[str],
    opens: Container[str],
    closes: Container[str],
    leaves: Container[str] = (),
) -> tuple[str, str]:
    """`lex_kept_text` split into (content, reasoning): a think block the kept text reopens
    (a lexeme in `opens`, up to one in `closes`) is reasoning, as vLLM's engine reads it with
    tool parsing skipped; the markers themselves are dropped (`state["kr"]`: inside one). A
    lexeme in `leaves` (a tool call's start) ends the block too and is kept as content."""
    held = state.get("kh", "")
    if final:
        lexemes, state["kh"] = table.flush(held + text), ""
    else:
        lexemes, state["kh"] = table.feed(held, text)
    content: list[str] = []
    reasoning: list[str] = []
    for name, value in lexemes:
        if state.get("kr"):
            if name in closes:
                state["kr"] = False
            elif name in leaves:
                state["kr"] = False
                content.append(value)
            elif name not in opens and name not in dropped:
                reasoning.append(value)
        elif name in opens:
            state["kr"] = True
        elif name not in dropped:
            content.append(value)
    return "".join(content), "".join(reasoning)


def silent_in_content(
    transitions: Mapping[tuple[str, str], tuple[str, Sequence[str]]],
    content: str,
    *,
    keep: Container[str] = (),
) -> set[str]:
    """The terminals a grammar's `content` state consumes without output (a repeated
    `</think>`), except those in `keep`: kept text drops them as the engine does."""
    return {
        terminal
        for (state, terminal), (target, events) in transitions.items()
        if state == content == target and not events and terminal not in keep
    }


def lex(table: LiteralTable, state: dict[str, Any], text: str) -> list[Lexeme]:
    """`table.feed` with the held tail in `state["buf"]`."""
    out, state["buf"] = table.feed(state.get("buf", ""), text)
    return out


def flush_lexer(table: LiteralTable, state: dict[str, Any]) -> list[Lexeme]:
    """`table.flush` of the tail held in `state["buf"]`."""
    held, state["buf"] = state.get("buf", ""), ""
    return table.flush(held) if held else []


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
