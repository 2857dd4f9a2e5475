"""The context length (`max_model_len`) vLLM 0.33.0 serves a model with, from its config.json.

The smallest of the config's length keys (`model_max_length` overriding them), capped at the
sliding window under `--disable-sliding-window`, times the RoPE scaling factor of the RoPE types
that leave `max_position_embeddings` unscaled; 2048 when the config names no length. A
`--max-model-len` above that is refused unless the config's `model_max_length` allows it or
VLLM_ALLOW_LONG_MAX_MODEL_LEN is set, as vLLM refuses to start.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from typing import Any

logger = logging.getLogger(__name__)

# Length keys vLLM reads, the smallest of them wins.
_LENGTH_KEYS = (
    "max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "model_max_length",
    "max_target_positions", "max_sequence_length", "max_seq_length", "seq_len",
)  # fmt: skip
# RoPE types whose checkpoints state the already-scaled length.
_PRESCALED_ROPE_TYPES = frozenset(
    {"su", "longrope", "llama3", "yarn", "deepseek_yarn", "deepseek_llama_scaling"}
)
# A config without any length key.
FALLBACK_LENGTH = 2048
# `--max-model-len -1` / `auto`: the derived length.
AUTO = -1


class ContextLengthError(ValueError):
    """A `--max-model-len` vLLM refuses for this model."""


def text_config(hf_config: dict[str, Any]) -> dict[str, Any]:
    """The language model's part of a (possibly multimodal) config."""
    sub = hf_config.get("text_config")
    return sub if isinstance(sub, dict) else hf_config


def max_model_len(
    hf_config: dict[str, Any], requested: int | None = None, *, disable_sliding_window: bool = False
) -> int:
    """The context length served: `requested` (checked) or the one derived from the config."""
    config = text_config(hf_config)
    derived, key = _derived_length(config, disable_sliding_window)
    if derived == float("inf"):
        if requested is not None and requested != AUTO:
            return requested
        logger.warning(
            "config.json names no context length; assuming %d tokens (as vLLM does)", FALLBACK_LENGTH
        )
        derived = FALLBACK_LENGTH
    rope = list(rope_parameters(config))
    if rope and "gemma3" not in str(config.get("model_type", "")):
        derived *= _scaling_factor(rope)
    if requested is None or requested == AUTO:
        if any(_rope_type(p) == "longrope" for p in rope):
            return int(config.get("original_max_position_embeddings", derived))
        return int(derived)
    if requested > derived:
        allowed = config.get("model_max_length")
        if allowed is None or requested > allowed:
            message = (
                f"User-specified max_model_len ({requested}) is greater than the derived "
                f"max_model_len ({key}={derived} or model_max_length={allowed} in model's "
                "config.json)."
            )
            if not _env_true("VLLM_ALLOW_LONG_MAX_MODEL_LEN"):
                raise ContextLengthError(
                    f"{message} To allow overriding this maximum, set the env var "
                    "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1."
                )
            logger.warning("%s (allowed by VLLM_ALLOW_LONG_MAX_MODEL_LEN)", message)
    return int(requested)


def _derived_length(config: dict[str, Any], disable_sliding_window: bool) -> tuple[float, str | None]:
    derived: float = float("inf")
    key = None
    for name in _LENGTH_KEYS:
        value = config.get(name)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if value < derived:
                derived, key = value, name
    if config.get("model_max_length"):  # Command-R: it wins over the other keys
        derived, key = config["model_max_length"], "model_max_length"
    window = config.get("sliding_window")
    if disable_sliding_window and isinstance(window, int) and 0 < window < derived:
        derived, key = window, "sliding_window"
    return derived, key


def rope_parameters(config: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The config's RoPE parameters (one dict per layer type when nested); a config with a
    `rope_theta` and no scaling has the default type."""
    params = config.get("rope_parameters")
    if not isinstance(params, dict):
        params = config.get("rope_scaling")
    if not isinstance(params, dict):
        if "rope_theta" in config:
            yield {"rope_type": "default"}
        return
    nested = [p for p in params.values() if isinstance(p, dict)]
    if nested and len(nested) == len(params):
        yield from (p for p in nested if p)
    elif params:
        yield params


def _rope_type(params: dict[str, Any]) -> str:
    return str(params.get("rope_type") or params.get("type") or "default")


def _scaling_factor(rope: list[dict[str, Any]]) -> float:
    factor: Any = 1.0
    for params in rope:
        if _rope_type(params) not in _PRESCALED_ROPE_TYPES:
            factor = params.get("factor", factor)
    if factor is None:
        logger.warning("config.json's RoPE scaling factor is null; using 1.0 (as vLLM does)")
        return 1.0
    return float(factor)


def _env_true(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true")
