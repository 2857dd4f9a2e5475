"""The tokenizer vocabulary, built once per tokenizer (`get_vocab()` costs ~1 s on 150k tokens)."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterator, Mapping
from typing import Any

from tokenfront.tokenization.fast_tokenizer import FastTokenizer

_VOCABS: weakref.WeakKeyDictionary[Any, dict[str, int]] = weakref.WeakKeyDictionary()
_BY_ID: dict[int, tuple[Any, dict[str, int]]] = {}
_LOCK = threading.Lock()


def vocab_of(tokenizer: Any) -> dict[str, int]:
    """`tokenizer.get_vocab()`, cached per tokenizer object. Treat the result as read-only."""
    try:
        vocab = _VOCABS.get(tokenizer)
    except TypeError:  # not weak-referenceable: fall back to an id-keyed cache
        entry = _BY_ID.get(id(tokenizer))
        if entry is not None and entry[0] is tokenizer:
            return entry[1]
        vocab = tokenizer.get_vocab()
        _BY_ID[id(tokenizer)] = (tokenizer, vocab)
        return vocab
    if vocab is None:
        with _LOCK:
            vocab = _VOCABS.get(tokenizer)
            if vocab is None:
                vocab = tokenizer.get_vocab()
                _VOCABS[tokenizer] = vocab
    return vocab


class _TokenLookup(Mapping[str, int]):
    """Single-token lookups through the tokenizer's own `token_to_id`; iterating or sizing it
    builds the vocabulary (`vocab_of`)."""

    def __init__(self, tokenizer: Any) -> None:
        self._tokenizer = tokenizer

    def __getitem__(self, token: str) -> int:
        found = self._tokenizer.token_to_id(token) if isinstance(token, str) else None
        if found is None:
            raise KeyError(token)
        return int(found)

    def __contains__(self, token: object) -> bool:
        return isinstance(token, str) and self._tokenizer.token_to_id(token) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(vocab_of(self._tokenizer))

    def __len__(self) -> int:
        return len(vocab_of(self._tokenizer))


def token_lookup(tokenizer: Any) -> Mapping[str, int]:
    """The vocabulary for looking tokens up (`in`, `get`, `[]`): the cached vocabulary when it
    is built, else the tokenizer's direct lookup where it has one (the start-up parser check
    and marker lookups then leave the ~0.1 s, ~20 MB vocabulary to the first request that
    needs it whole)."""
    try:
        cached = _VOCABS.get(tokenizer)
    except TypeError:
        cached = None
    if cached is not None or not isinstance(tokenizer, FastTokenizer):
        return cached if cached is not None else vocab_of(tokenizer)
    return _TokenLookup(tokenizer)


def vocab_size(tokenizer: Any) -> int:
    """`len(tokenizer)` (added tokens included): the ids past it decode to no token; 0 for a
    tokenizer without a length."""
    try:
        return len(tokenizer)
    except TypeError:
        return 0


def token_id(tokenizer: Any, token: str) -> int | None:
    """The id of `token` when it is one vocabulary entry, else None."""
    return token_lookup(tokenizer).get(token)
