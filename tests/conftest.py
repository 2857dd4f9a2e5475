"""Fixtures shared across the test tree."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def builtin_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A private built-in model cache (TOKENFRONT_CACHE_DIR), built once per test session."""
    from tokenfront.tokenization import builtin

    path = tmp_path_factory.mktemp("tokenfront-cache")
    mp = pytest.MonkeyPatch()
    mp.setenv("TOKENFRONT_CACHE_DIR", str(path))
    try:
        builtin.builtin_model_dir()
    finally:
        mp.undo()
    yield path
