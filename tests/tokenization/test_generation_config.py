"""A model folder without generation_config.json: the generation config vLLM derives from
config.json (transformers' `GenerationConfig.from_model_config`)."""

from __future__ import annotations

from pathlib import Path

from tokenfront.config import ModelOptions
from tokenfront.tokenization.registry import generation_config_from_model_config, load_model

HY4 = Path(__file__).resolve().parents[1] / "models" / "hy4-opensource"


def test_generation_fields_come_from_the_model_config() -> None:
    config = {"eos_token_id": [1, 2], "bos_token_id": 0, "hidden_size": 8, "temperature": None}
    assert generation_config_from_model_config(config) == {"eos_token_id": [1, 2], "bos_token_id": 0}


def test_text_config_fills_what_the_outer_config_leaves_unset() -> None:
    config = {"bos_token_id": 0, "text_config": {"eos_token_id": 7, "bos_token_id": 9, "top_p": 0.9}}
    assert generation_config_from_model_config(config) == {"bos_token_id": 0, "eos_token_id": 7, "top_p": 0.9}


def test_config_eos_ids_stop_a_model_without_generation_config() -> None:
    model = load_model(ModelOptions(model=str(HY4), served_model_name=["hy"]))
    assert not (HY4 / "generation_config.json").exists()
    assert model.generation_config["eos_token_id"] == [128001, 128008, 128009]
    assert {128001, 128008, 128009} <= model.model_eos_token_ids
