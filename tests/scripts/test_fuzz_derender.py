"""`scripts/fuzz_derender.py`: it finds every config and its random derender calls on a shared
config get no server error."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from fuzz_derender import SHARED, configs, fuzz  # noqa: E402

needs_shared = pytest.mark.skipif(not (SHARED / "models").is_dir(), reason="../shared is absent")


@needs_shared
def test_every_config_file_is_read_with_resolved_model_dirs() -> None:
    found = configs()
    assert "configs.json:qwen3-hermes" in found
    assert all(Path(cfg["model"]).is_dir() for cfg in found.values())


@needs_shared
@pytest.mark.parametrize("config", ["configs.json:qwen3-hermes", "configs.json:syn-kimi_k2"])
def test_random_derender_calls_get_no_server_error(config: str) -> None:
    assert fuzz(config, configs()[config], random.Random(config), requests=30) == []
