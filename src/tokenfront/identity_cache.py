"""Caches keyed by object identity that never hand one object's value to another.

A value usually refers back to its object (a tokenizer's compiled grammar holds the tokenizer),
so a module-level table would keep every object alive: tests load and drop many models. Where
the object takes attributes the values live on the object itself, and a dropped object goes
with its values (the cycle is collected). Otherwise the entry is keyed by `id()`, with a weak
reference (or, when the object takes none, the object itself) so that a reused id never
answers for another object.
"""

from __future__ import annotations

import weakref
from collections.abc import Hashable
from typing import Any, Generic, TypeVar

V = TypeVar("V")

_ATTRIBUTE = "_tokenfront_identity_cache"


class IdentityCache(Generic[V]):
    def __init__(self) -> None:
        self._entries: dict[tuple[int, Hashable], tuple[Any, V]] = {}

    def get(self, obj: Any, extra: Hashable = None) -> V | None:
        own = _own_entries(obj, create=False)
        if own is not None:
            return own.get((self, extra))
        entry = self._entries.get((id(obj), extra))
        if entry is None:
            return None
        ref, value = entry
        held = ref() if isinstance(ref, weakref.ref) else ref
        return value if held is obj else None

    def put(self, obj: Any, value: V, extra: Hashable = None) -> V:
        own = _own_entries(obj, create=True)
        if own is not None:
            own[(self, extra)] = value
            return value
        try:
            ref: Any = weakref.ref(obj)
        except TypeError:  # not weak-referenceable: hold it (such objects are few and long-lived)
            ref = obj
        self._entries[(id(obj), extra)] = (ref, value)
        return value


def _own_entries(obj: Any, *, create: bool) -> dict[Any, Any] | None:
    """The cache entries stored on `obj` (None: `obj` takes no attributes, or has none yet
    and `create` is false)."""
    attributes = getattr(obj, "__dict__", None)
    if not isinstance(attributes, dict):
        return None
    entries = attributes.get(_ATTRIBUTE)
    if entries is None and create:
        entries = attributes.setdefault(_ATTRIBUTE, {})
    return entries
