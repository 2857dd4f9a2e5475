"""A model for the mock engine tests: the shared Qwen3 folder, else the built-in model."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tokenfront.config import ModelOptions
from tokenfront.tokenization.registry import ServedModel, load_model

MODELS = Path(os.environ["TOKENFRONT_TEST_MODELS"])


@pytest.fixture(scope="session")
def engine_model() -> ServedModel:
    folder = MODELS / "qwen3"
    if folder.is_dir():
        return load_model(ModelOptions(model=str(folder), served_model_name=["qwen3"]))
    return load_model(ModelOptions())


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
