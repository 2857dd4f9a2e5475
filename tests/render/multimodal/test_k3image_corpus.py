"""The recorded Kimi K3 image corpus, checked where the path-independent parity replay cannot:
vLLM hashes an image together with the `--model` argument, so the corpus records that argument
(`mm_model_id`) and this test renders each image case with it, comparing whole `features` (hashes
included). Also checks each placeholder range holds one media block of the image's token count.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tokenfront.config import ModelOptions
from tokenfront.tokenization.registry import ServedModel, load_model

REPO = Path(__file__).resolve().parents[3]
CORPUS = REPO / "tests" / "golden" / "vllm-k3image.jsonl"
MODEL_DIR = REPO / "tests" / "models" / "kimi-k3"
MEDIA_ID = 151672  # config media_placeholder_token_id (the test tokenizer has no <|media_pad|>)


def _records() -> list[dict[str, Any]]:
    if not CORPUS.is_file():
        return []
    records = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()]
    return [r for r in records if r.get("mm_model_id") and r["endpoint"].endswith("/render")]


@pytest.fixture(scope="module")
def model() -> ServedModel:
    if not (MODEL_DIR / "tokenizer.json").is_file():  # a symlink into ../shared
        pytest.skip(f"{MODEL_DIR.name}: the shared qwen3 tokenizer is missing")
    return load_model(ModelOptions(model=str(MODEL_DIR), served_model_name=["k3"]))


def test_corpus_has_hashed_records() -> None:
    assert len(_records()) >= 10


@pytest.mark.parametrize("record", _records(), ids=lambda r: r["id"])
def test_features_with_recorded_model_path(
    record: dict[str, Any], model: ServedModel, render_as_recorded: Any
) -> None:
    answer = render_as_recorded(model, record)
    assert answer["features"] == record["response"]["features"]
    assert answer["token_ids"] == record["response"]["token_ids"]
    text = model.tokenizer.decode(answer["token_ids"])
    assert "<|kimi_image_placeholder|>" in text
    for span in answer["features"]["mm_placeholders"]["image"]:
        ids = answer["token_ids"][span["offset"] : span["offset"] + span["length"]]
        block = model.tokenizer.decode(ids)
        assert block.startswith("<|media_begin|>image ") and block.endswith("<|media_end|>")
        assert ids.count(MEDIA_ID) >= 1
