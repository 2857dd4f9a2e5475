"""Garbage-collector settings for a serving process (tail latency).

A full (generation-2) collection walks every container the process holds. After start-up that
is ~100k objects from transformers, FastAPI, pydantic and the tokenizer wrappers, none of which
ever become garbage; one such collection took 50-100 ms of CPU on the bench box. With
CPython's default thresholds a logprob derender (W3: ~3,000 dicts alive while it runs) pushed
enough survivors into the old generation to start one every ~25 requests, ~40% of its CPU,
and every request queued behind it waited as long: that was most of the p99 at concurrency 8.

During start-up (`pause_collection()`, from `tokenfront serve` before anything is imported;
not in `--workers` worker processes, whose imports run before the app factory is called)
no automatic collection runs at all: imports, pydantic's schema building and the model load
create ~100k long-lived containers, and CPython's thresholds walked them ~160 times (~0.1 s of
a ~1 s cold start) to find the few cycles start-up leaves, which `settle_heap()` collects once.

`settle_heap()` is called once start-up is complete (see `tokenfront.api.deferred`):

* `gc.freeze()` moves everything alive at that point out of the collector's sight (it is
  still freed by reference counting if it ever dies), so a full collection sees only what
  was allocated since: ~1k objects, ~1-2 ms;
* the youngest generation's threshold is raised so an ordinary request, whose objects all
  die when it ends, finishes before a collection starts (a W3 request stays below it; the
  default 700 ran ~6 young collections per W3 request, each promoting its live objects);
* if something long-lived grows later (a cache, a lazily built table) and a full collection
  becomes slow again, the survivors of that collection are frozen too. Only objects alive
  right after a full collection are frozen, so no garbage is pinned.
"""

from __future__ import annotations

import gc
import time
from typing import Any

# Net container allocations before a young collection (CPython's default is 700). A W3-sized
# request (256 tokens x top-5 logprobs) stays well below it; the cost is that up to this many
# objects of unreachable cycles wait a little longer to be freed (a few MB at most).
YOUNG_THRESHOLD = 50_000
# A full collection that takes longer than this (CPU seconds) freezes its survivors.
REFREEZE_AFTER_S = 0.010

_state: dict[str, float] = {"start": 0.0}


def pause_collection() -> None:
    """No automatic collections until `settle_heap()` or `resume_collection()` (start-up)."""
    gc.disable()


def resume_collection() -> None:
    """Automatic collections again, after collecting what start-up left (a process that will
    not serve requests itself, e.g. the supervisor of `--workers N`)."""
    gc.collect()
    gc.enable()


def settle_heap() -> None:
    """Collect once, freeze what is alive, tune the thresholds for request handling and turn
    automatic collections (back) on."""
    gc.collect()
    gc.freeze()
    young, middle, old = gc.get_threshold()
    gc.set_threshold(max(young, YOUNG_THRESHOLD), middle, old)
    if _refreeze_slow_full_collections not in gc.callbacks:
        gc.callbacks.append(_refreeze_slow_full_collections)
    gc.enable()


def _refreeze_slow_full_collections(phase: str, info: dict[str, Any]) -> None:
    if info.get("generation") != 2:
        return
    if phase == "start":
        _state["start"] = time.process_time()
    elif time.process_time() - _state["start"] > REFREEZE_AFTER_S:
        # The collection has finished: what is left in every generation is reachable.
        gc.freeze()
