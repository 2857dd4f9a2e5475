"""The context length derived from config.json as vLLM 0.33.0 derives it (served goldens:
tests/golden/vllm-maxlen.jsonl; these pin the rules the shared models do not reach)."""

from __future__ import annotations

import pytest

from tokenfront.tokenization.context_length import (
    FALLBACK_LENGTH,
    ContextLengthError,
    max_model_len,
)

QWEN = {"model_type": "qwen3", "max_position_embeddings": 40960, "rope_theta": 1e6}


def test_the_smallest_length_key_wins_and_model_max_length_overrides_them() -> None:
    assert max_model_len({**QWEN, "seq_length": 1000}) == 1000
    assert max_model_len({**QWEN, "model_max_length": 50000}) == 50000


def test_rope_factors_scale_only_the_types_that_state_an_unscaled_length() -> None:
    assert max_model_len({**QWEN, "rope_scaling": {"rope_type": "linear", "factor": 2.0}}) == 81920
    assert max_model_len({**QWEN, "rope_scaling": {"type": "dynamic", "factor": 4.0}}) == 163840
    assert max_model_len({**QWEN, "rope_scaling": {"rope_type": "yarn", "factor": 4.0}}) == 40960
    nested = {"full_attention": {"rope_type": "linear", "factor": 2.0}, "sliding_attention": {"rope_type": "default"}}
    assert max_model_len({**QWEN, "rope_parameters": nested}) == 81920
    gemma = {"model_type": "gemma3_text", "max_position_embeddings": 131072,
             "rope_scaling": {"rope_type": "linear", "factor": 8.0}}  # fmt: skip
    assert max_model_len(gemma) == 131072  # already scaled, as vLLM treats gemma3
    assert max_model_len({**QWEN, "rope_scaling": {"rope_type": "linear", "factor": None}}) == 40960


def test_longrope_serves_its_original_length_unless_asked() -> None:
    config = {**QWEN, "original_max_position_embeddings": 4096,
              "rope_scaling": {"rope_type": "longrope", "short_factor": [1], "long_factor": [2]}}  # fmt: skip
    assert max_model_len(config) == 4096
    assert max_model_len(config, 40960) == 40960


def test_disable_sliding_window_caps_at_a_narrower_window() -> None:
    assert max_model_len({**QWEN, "sliding_window": 4096}) == 40960
    assert max_model_len({**QWEN, "sliding_window": 4096}, disable_sliding_window=True) == 4096
    assert max_model_len({**QWEN, "sliding_window": 0}, disable_sliding_window=True) == 40960


def test_a_config_without_length_keys_falls_back_unless_given_one() -> None:
    assert max_model_len({"model_type": "x"}) == FALLBACK_LENGTH
    assert max_model_len({"model_type": "x"}, 9000) == 9000
    assert max_model_len({"text_config": {"max_position_embeddings": 8192}}) == 8192


def test_a_longer_requested_length_is_refused_as_vllm_refuses_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VLLM_ALLOW_LONG_MAX_MODEL_LEN", raising=False)
    assert max_model_len(QWEN, 1000) == 1000 and max_model_len(QWEN, -1) == 40960
    with pytest.raises(ContextLengthError, match=r"max_model_len \(100000\) is greater than .*40960\.0"):
        max_model_len(QWEN, 100000)
    monkeypatch.setenv("VLLM_ALLOW_LONG_MAX_MODEL_LEN", "1")
    assert max_model_len(QWEN, 100000) == 100000


def test_model_max_length_allows_a_request_above_a_sliding_window_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VLLM_ALLOW_LONG_MAX_MODEL_LEN", raising=False)
    config = {**QWEN, "model_max_length": 50000, "sliding_window": 4096}
    assert max_model_len(config, 8000, disable_sliding_window=True) == 8000
    with pytest.raises(ContextLengthError):
        max_model_len(config, 60000, disable_sliding_window=True)
