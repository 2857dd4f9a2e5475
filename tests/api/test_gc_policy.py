"""The serving process's garbage-collector settings: frozen start-up heap, a young threshold
an ordinary request stays under, survivors of a slow full collection frozen, and only for a
serving app (in-process apps leave the interpreter alone)."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tokenfront.api import gc_policy
from tokenfront.api.app import create_app
from tokenfront.config import ModelOptions, ServerSettings
from tokenfront.tokenization.registry import ModelRegistry, load_model

MODELS = Path(os.environ["TOKENFRONT_TEST_MODELS"])


@pytest.fixture(scope="module")
def registry() -> ModelRegistry:
    path = MODELS / "qwen3"
    if not path.is_dir():
        pytest.skip("shared qwen3 model not available")
    return ModelRegistry([load_model(ModelOptions(model=str(path), served_model_name=["qwen3"]))])


@pytest.fixture
def restore_gc() -> Iterator[None]:
    threshold = gc.get_threshold()
    callbacks = list(gc.callbacks)
    yield
    gc.set_threshold(*threshold)
    gc.callbacks[:] = callbacks
    gc.unfreeze()


def test_settle_heap_freezes_and_raises_young_threshold(restore_gc: None) -> None:
    gc.unfreeze()
    kept = [[i] for i in range(1000)]
    gc_policy.settle_heap()
    assert gc.get_freeze_count() >= len(kept)
    assert gc.get_threshold()[0] >= gc_policy.YOUNG_THRESHOLD
    assert gc.callbacks.count(gc_policy._refreeze_slow_full_collections) == 1
    gc_policy.settle_heap()  # idempotent: one callback
    assert gc.callbacks.count(gc_policy._refreeze_slow_full_collections) == 1


def test_slow_full_collection_freezes_survivors(
    restore_gc: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    gc.unfreeze()
    before = gc.get_freeze_count()
    clock = iter([1.0, 1.5])
    monkeypatch.setattr(gc_policy.time, "process_time", lambda: next(clock))
    gc_policy._refreeze_slow_full_collections("start", {"generation": 2})
    gc_policy._refreeze_slow_full_collections("stop", {"generation": 2})
    assert gc.get_freeze_count() > before


def test_fast_or_young_collections_freeze_nothing(
    restore_gc: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    gc.unfreeze()
    clock = iter([1.0, 1.001])
    monkeypatch.setattr(gc_policy.time, "process_time", lambda: next(clock))
    gc_policy._refreeze_slow_full_collections("start", {"generation": 2})
    gc_policy._refreeze_slow_full_collections("stop", {"generation": 2})
    gc_policy._refreeze_slow_full_collections("start", {"generation": 0})
    gc_policy._refreeze_slow_full_collections("stop", {"generation": 0})
    assert gc.get_freeze_count() == 0


@pytest.mark.parametrize("serving", [False, True])
def test_settled_at_startup_only_when_serving(
    restore_gc: None, monkeypatch: pytest.MonkeyPatch, registry: ModelRegistry, serving: bool
) -> None:
    calls: list[int] = []
    monkeypatch.setattr("tokenfront.api.app.settle_heap", lambda: calls.append(1))
    app = create_app(registry, ServerSettings(stream_state_key=["k"]), serving=serving)
    with TestClient(app) as client:
        assert client.get("/health").status_code == 200
    # A serving app settles the heap at the end of its start-up warm-up (api/deferred.py).
    thread = app.warm_up_thread  # type: ignore[attr-defined]
    assert (thread is not None) == serving
    if thread is not None:
        thread.join(30)
    assert calls == ([1] if serving else [])


def test_collection_paused_until_the_heap_is_settled(restore_gc: None) -> None:
    gc_policy.pause_collection()
    assert not gc.isenabled()
    gc_policy.settle_heap()
    assert gc.isenabled()
    gc_policy.pause_collection()
    gc_policy.resume_collection()
    assert gc.isenabled()
