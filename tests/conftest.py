"""Fixtures shared across the test tree."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

# The shared model folders (../shared/models beside the repository, as CI lays them out).
_REPO = Path(__file__).resolve().parents[1]
os.environ.setdefault(
    "TOKENFRONT_TEST_MODELS",
    str(Path(os.environ.get("TOKENFRONT_SHARED", _REPO.parent / "shared")) / "models"),
)


# The day every recorded golden in tests/golden was recorded: chat templates that print today's
# date (Llama 3's `strftime_now("%d %b %Y")`) rendered it into their token ids, so the golden
# replays read the template clock on that day (record new goldens with `date_string`, or on
# this day).
GOLDEN_RECORDING_DAY = (2026, 12, 2)


@pytest.fixture(scope="module")
def template_clock_on_the_recording_day() -> Iterator[None]:
    """For modules that replay tests/golden (`pytestmark = usefixtures(...)`)."""
    from datetime import datetime

    from tokenfront.tokenization import chat_render

    class _RecordingDay(datetime):
        @classmethod
        def now(cls, tz: object = None) -> datetime:  # type: ignore[override]
            return datetime(*GOLDEN_RECORDING_DAY, 12, 0, 0)

    mp = pytest.MonkeyPatch()
    mp.setattr(chat_render, "datetime", _RecordingDay)
    try:
        yield
    finally:
        mp.undo()


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


@pytest.fixture(scope="session")
def gpt_oss_tokenizer() -> object:
    """The gpt-oss test model's tokenizer (tests/models/gpt-oss, built from gpt-oss-src)."""
    import importlib.util

    from transformers import AutoTokenizer

    builder = _REPO / "tests" / "models" / "gpt-oss-src" / "build.py"
    spec = importlib.util.spec_from_file_location("_gpt_oss_build", builder)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return AutoTokenizer.from_pretrained(module.build())
