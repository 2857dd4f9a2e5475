"""Parser set-up problems at start-up are a one-line model load error (exit 1), not a traceback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tokenfront import launch
from tokenfront.config import ModelOptions, ServerSettings
from tokenfront.tokenization.registry import ModelLoadError, load_model

QWEN3 = Path(os.environ["TOKENFRONT_TEST_MODELS"]) / "qwen3"


@pytest.mark.parametrize(
    "parsers",
    [
        {"reasoning_parser": "hf", "tool_call_parser": "hermes", "enable_auto_tool_choice": True},
        {"reasoning_parser": "hf"},  # the tokenizer has no response_template
    ],
)
def test_unusable_parser_setup_is_a_model_load_error(parsers: dict) -> None:
    if not QWEN3.is_dir():
        pytest.skip("shared qwen3 model not available")
    with pytest.raises(ModelLoadError, match="output parsers"):
        load_model(ModelOptions(model=str(QWEN3), **parsers))


def test_serve_exits_1_on_an_unusable_parser_setup(caplog) -> None:
    if not QWEN3.is_dir():
        pytest.skip("shared qwen3 model not available")
    options = ModelOptions(model=str(QWEN3), reasoning_parser="hf")
    assert launch.run([options], ServerSettings()) == 1
    assert "response_template" in caplog.text
