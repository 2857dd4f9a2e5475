"""Multi-token chunks read piece by piece, for per-delta logic written for one token per delta.

vLLM's marker-counting stream parsers see a whole engine chunk at once; when one chunk holds
a marker token and text around it (or several markers) their per-delta logic loses text.
`split_at_markers` cuts a chunk so that every marker token is a piece of its own (the text
runs between markers stay whole), `merge_deltas` joins the pieces' deltas into one chunk
delta, and `same_effect` tells whether two chunk deltas send the same thing (so a parser
can keep its whole-chunk answer, byte for byte, wherever that answer was already right).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tokenfront.parsers.base import DeltaMessage, merge_tool_deltas

Piece = tuple[str, list[int]]


def split_at_markers(text: str, ids: Sequence[int], markers: Mapping[int, str]) -> list[Piece]:
    """`(text, ids)` pieces of a chunk: each marker token alone, the runs between them whole.

    `markers` maps a marker's token id to its text. A chunk whose text does not hold its
    marker ids' texts in order (a marker split off by the detokenizer) is one piece."""
    pieces: list[Piece] = []
    at, run = 0, []
    for token in ids:
        marker = markers.get(token)
        if marker is None:
            run.append(token)
            continue
        found = text.find(marker, at)
        if found == -1:
            return [(text, list(ids))]
        if run or found > at:
            pieces.append((text[at:found], run))
        pieces.append((marker, [token]))
        at, run = found + len(marker), []
    if run or at < len(text):
        pieces.append((text[at:], run))
    return pieces


def merge_deltas(deltas: Sequence[DeltaMessage | None]) -> DeltaMessage | None:
    """One delta for a chunk's pieces: contents joined, tool-call deltas merged per call."""
    sent = [d for d in deltas if d is not None]
    if not sent:
        return None
    contents = [d.content for d in sent if d.content is not None]
    reasoning = [d.reasoning for d in sent if d.reasoning is not None]
    calls = [tc for d in sent for tc in d.tool_calls]
    return DeltaMessage(
        content="".join(contents) if contents else None,
        reasoning="".join(reasoning) if reasoning else None,
        tool_calls=merge_tool_deltas(calls),
    )


def _effect(delta: DeltaMessage | None) -> tuple[Any, ...]:
    if delta is None:
        return ("", "", ())
    calls: dict[int, list[Any]] = {}
    for tc in delta.tool_calls:
        slot = calls.setdefault(tc.index, [False, "", ""])
        slot[0] = slot[0] or tc.id is not None
        slot[1] += tc.name or ""
        slot[2] += tc.arguments or ""
    return (
        delta.content or "",
        delta.reasoning or "",
        tuple(sorted((k, *v) for k, v in calls.items())),
    )


def same_effect(a: DeltaMessage | None, b: DeltaMessage | None) -> bool:
    """Whether two chunk deltas send the same text, calls, names and arguments (ids aside)."""
    return _effect(a) == _effect(b)


# Prefixes are decoded from the start once per this many tokens (anchors); in between, from a
# few tokens before the last anchor (the context a token's text may depend on: a word's
# leading space, the bytes of a character split across tokens).
_ANCHOR_EVERY = 128
_CONTEXT = 4


def token_pieces(tokenizer: Any, text: str, ids: Sequence[int]) -> list[Piece]:
    """`(text, [id])` per token of a chunk; an id the tokenizer cannot decode (outside
    0..2**32-1, which the detokenizer reads as no text) gets an empty piece."""
    if all(0 <= token < 2**32 for token in ids):
        return _decoded_pieces(tokenizer, text, ids)
    kept = [token for token in ids if 0 <= token < 2**32]
    decoded = iter(_decoded_pieces(tokenizer, text, kept))
    pieces = [next(decoded) if 0 <= token < 2**32 else ("", [token]) for token in ids]
    if not kept:  # the text (if any) goes with the last piece, as for decodable ids
        pieces[-1] = (text, pieces[-1][1])
    return pieces


def _decoded_pieces(tokenizer: Any, text: str, ids: Sequence[int]) -> list[Piece]:
    """`(text, [id])` per token of a chunk; a token that ends inside a character gets no
    text (the character goes with the token that completes it), the last one any rest.

    Each token's text is what decoding the chunk up to it adds. Decoding every prefix is
    quadratic in the chunk, so tokens are read in windows of 128: a token's prefix is the
    last anchor's text plus what the tokens since add to a few tokens of context before it.
    The window's reading is checked at its end: against its prefix decoded whole in the
    first window (the start of a text is where decoding is not local: a first token's
    leading space) and wherever the text has left the decoded prefixes; else against the
    chunk's text, from the anchor on, so that a window costs only its own tokens. A window
    that fails its check is decoded prefix by prefix. A window's end becomes the next
    anchor unless it ends inside a character."""

    def decode(start: int, end: int) -> str:
        return str(tokenizer.decode(list(ids[start:end]), skip_special_tokens=False))

    pieces: list[Piece] = []
    shown = 0  # the pieces so far are text[:shown]
    anchor = 0  # never inside a character
    anchor_text: str | None = ""  # the anchor's decoded prefix; None: it is text[:anchor_len]
    anchor_len = 0
    start = 0
    while start < len(ids):
        end = min(len(ids), start + _ANCHOR_EVERY)
        context = max(0, anchor - _CONTEXT)
        before = decode(context, anchor)
        tails = [decode(context, k + 1)[len(before) :] for k in range(start, end)]
        if anchor_text is None:  # the anchor's prefix is the text's: check against the text
            base = anchor_len
            exact = text.startswith(tails[-1], base)
        else:  # check against the window's prefix decoded whole
            whole = decode(0, end)
            base, tails = 0, [anchor_text + tail for tail in tails]
            exact = tails[-1] == whole
        if not exact:
            base, tails = 0, [decode(0, k + 1) for k in range(start, end)]
        fits = [text.startswith(tail, base) for tail in tails]
        for k, tail, fit in zip(range(start, end), tails, fits, strict=True):
            if tail.endswith("\ufffd") or not fit:
                pieces.append(("", [ids[k]]))
                continue
            pieces.append((text[shown : base + len(tail)], [ids[k]]))
            shown = base + len(tail)
        start = end
        if not tails[-1].endswith("\ufffd"):
            anchor, anchor_len = end, base + len(tails[-1])
            anchor_text = None if fits[-1] else tails[-1]
    if pieces:
        last_text, last_ids = pieces[-1]
        pieces[-1] = (last_text + text[shown:], last_ids)
    return pieces


def stream_by_token(
    step: Callable[[Any, str, Sequence[int]], DeltaMessage | None],
    state: Any,
    pieces: Sequence[Piece],
    text: str,
    ids: Sequence[int],
    feed: Callable[[Any, Sequence[Piece]], list[DeltaMessage | None]] | None = None,
) -> DeltaMessage | None:
    """A chunk of several pieces through per-delta `step` (on dict `state`): vLLM's
    whole-chunk answer and state when the pieces fed one by one send the same (the stream
    stays byte for byte vLLM's while its answers are right), else the pieces' merged deltas
    and the state they leave. `feed` replaces feeding the pieces to `step` one by one (a
    parser that can take a run of pieces at once, with the same effect)."""
    if len(pieces) <= 1:
        return step(state, text, ids)
    by_piece = copy.deepcopy(state)
    if feed is not None:
        merged = merge_deltas(feed(by_piece, pieces))
    else:
        merged = merge_deltas([step(by_piece, t, piece_ids) for t, piece_ids in pieces])
    whole_state = copy.deepcopy(state)
    whole = step(whole_state, text, ids)
    kept = same_effect(whole, merged)
    state.clear()
    state.update(whole_state if kept else by_piece)
    return whole if kept else merged
