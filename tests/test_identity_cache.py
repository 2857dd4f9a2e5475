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


def test_a_value_that_refers_to_its_object_does_not_keep_it_alive() -> None:
    # a tokenizer's compiled grammar holds the tokenizer: tests load and drop many models
    import weakref

    cache: IdentityCache[list[object]] = IdentityCache()
    thing = _Thing()
    cache.put(thing, [thing], extra="compiled")
    assert cache.get(thing, "compiled") == [thing]
    assert cache.get(thing, "other") is None
    assert IdentityCache().get(thing, "compiled") is None  # each cache keeps its own entries
    gone = weakref.ref(thing)
    del thing
    gc.collect()
    assert gone() is None


def test_objects_without_attributes_are_held_by_the_cache() -> None:
    cache: IdentityCache[int] = IdentityCache()
    marker = object()  # no `__dict__`, not weak-referenceable
    cache.put(marker, 7)
    assert cache.get(marker) == 7
