"""Shared models for the derender tests (tokenizer-only folders from ../shared/models)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tokenfront.config import ModelOptions, ServerSettings
from tokenfront.tokenization.registry import ServedModel, load_model

MODELS = Path(os.environ["TOKENFRONT_TEST_MODELS"])


def _load(folder: str, name: str, **options: object) -> ServedModel:
    path = MODELS / folder
    if not path.is_dir():
        pytest.skip(f"shared model {path} not available")
    return load_model(ModelOptions(model=str(path), served_model_name=[name], **options))


@pytest.fixture(scope="session")
def qwen3() -> ServedModel:
    return _load("qwen3", "qwen3")


@pytest.fixture(scope="session")
def llama3() -> ServedModel:
    return _load("llama3", "llama3")


@pytest.fixture(scope="session")
def spm() -> ServedModel:
    return _load("synthetic-spm", "spm")


@pytest.fixture(scope="session")
def qwen3_small() -> ServedModel:
    return _load("qwen3", "qwen3-small", max_model_len=64)


@pytest.fixture
def settings() -> ServerSettings:
    return ServerSettings(stream_state_key=["test-key"])
