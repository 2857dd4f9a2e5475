"""The tokenizer vocabulary, built once per tokenizer (`get_vocab()` costs ~1 s on 150k tokens)."""

from __future__ import annotations

import threading
import weakref
from typing import Any

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


def token_id(tokenizer: Any, token: str) -> int | None:
    """The id of `token` when it is one vocabulary entry, else None."""
    return vocab_of(tokenizer).get(token)
