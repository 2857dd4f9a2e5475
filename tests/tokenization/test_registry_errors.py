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
    ("parsers", "message"),
    [
        (
            {"reasoning_parser": "hf", "tool_call_parser": "hermes", "enable_auto_tool_choice": True},
            "output parsers .* cannot be combined",
        ),
        # the tokenizer has no response_template: vLLM's own text
        ({"reasoning_parser": "hf"}, "^--reasoning-parser hf requires `response_template` metadata"),
        ({"reasoning_parser": "step3"}, None),
    ],
)
def test_unusable_parser_setup_is_a_model_load_error(parsers: dict, message: str | None) -> None:
    if not QWEN3.is_dir():
        pytest.skip("shared qwen3 model not available")
    if message is None:  # markers qwen3 has: no error
        load_model(ModelOptions(model=str(QWEN3), **parsers))
        return
    with pytest.raises(ModelLoadError, match=message):
        load_model(ModelOptions(model=str(QWEN3), **parsers))


def test_serve_exits_1_on_an_unusable_parser_setup(caplog) -> None:
    if not QWEN3.is_dir():
        pytest.skip("shared qwen3 model not available")
    options = ModelOptions(model=str(QWEN3), reasoning_parser="hf")
    assert launch.run([options], ServerSettings()) == 1
    assert "response_template" in caplog.text


def test_a_context_length_past_the_configs_is_a_model_load_error(monkeypatch: pytest.MonkeyPatch) -> None:
    if not QWEN3.is_dir():
        pytest.skip("shared qwen3 model not available")
    monkeypatch.delenv("VLLM_ALLOW_LONG_MAX_MODEL_LEN", raising=False)
    with pytest.raises(ModelLoadError, match="VLLM_ALLOW_LONG_MAX_MODEL_LEN"):
        load_model(ModelOptions(model=str(QWEN3), max_model_len=100_000))
