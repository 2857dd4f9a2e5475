"""Caches keyed by object identity that never hand one object's value to another.

`id()` values are reused once an object is freed (tests load and drop many models), so each
entry also keeps a weak reference to its object and only answers for that same live object.
"""

from __future__ import annotations

import weakref
from collections.abc import Hashable
from typing import Any, Generic, TypeVar

V = TypeVar("V")


class IdentityCache(Generic[V]):
    def __init__(self) -> None:
        self._entries: dict[tuple[int, Hashable], tuple[Any, V]] = {}

    def get(self, obj: Any, extra: Hashable = None) -> V | None:
        entry = self._entries.get((id(obj), extra))
        if entry is None:
            return None
        ref, value = entry
        held = ref() if isinstance(ref, weakref.ref) else ref
        return value if held is obj else None

    def put(self, obj: Any, value: V, extra: Hashable = None) -> V:
        try:
            ref: Any = weakref.ref(obj)
        except TypeError:  # not weak-referenceable: hold it (such objects are few and long-lived)
            ref = obj
        self._entries[(id(obj), extra)] = (ref, value)
        return value
