"""Identity caches never answer for a different object that got a freed object's id."""

from __future__ import annotations

import gc

from tokenfront.identity_cache import IdentityCache


class _Thing:
    pass


def test_value_is_only_returned_for_the_same_live_object() -> None:
    cache: IdentityCache[int] = IdentityCache()
    first = _Thing()
    cache.put(first, 1)
    assert cache.get(first) == 1
    stale_id = id(first)
    del first
    gc.collect()
    for _ in range(1000):  # CPython hands the freed slot to a new object of the same size
        other = _Thing()
        if id(other) == stale_id:
            break
    assert cache.get(other) is None


def test_extra_key_and_unweakrefable_objects() -> None:
    cache: IdentityCache[str] = IdentityCache()
    key = (1, 2)  # tuples cannot be weak-referenced: the cache holds them
    cache.put(key, "a", extra="x")
    assert cache.get(key, "x") == "a"
    assert cache.get(key, "y") is None
