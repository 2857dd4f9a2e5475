"""Shared fixtures: real tokenizers from the shared model folder (skipped when absent)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tokenfront.config import ModelOptions
from tokenfront.tokenization.registry import ServedModel, load_model

MODELS = Path(os.environ["TOKENFRONT_TEST_MODELS"])


def _load(folder: str, name: str, **options: object) -> ServedModel:
    path = MODELS / folder
    if not path.is_dir():
        pytest.skip(f"shared model {folder} not available")
    return load_model(ModelOptions(model=str(path), served_model_name=[name], **options))


@pytest.fixture(scope="session")
def qwen3_hermes() -> ServedModel:
    return _load(
        "qwen3",
        "qwen3",
        tool_call_parser="hermes",
        enable_auto_tool_choice=True,
        reasoning_parser="qwen3",
    )


@pytest.fixture(scope="session")
def qwen3_plain() -> ServedModel:
    return _load("qwen3", "qwen3")


@pytest.fixture(scope="session")
def qwen3_small() -> ServedModel:
    return _load(
        "qwen3", "qwen3-small", max_model_len=512, tool_call_parser="hermes",
        enable_auto_tool_choice=True,
    )


@pytest.fixture(scope="session")
def llama3_json() -> ServedModel:
    return _load("llama3", "llama3", tool_call_parser="llama3_json", enable_auto_tool_choice=True)
