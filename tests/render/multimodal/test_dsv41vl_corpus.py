"""The recorded DeepSeek V4.1 vision corpus, checked where the path-independent parity replay
cannot: vLLM hashes an image together with the `--model` argument, so the corpus records that
argument (`mm_model_id`) and this test renders each image case with it, comparing whole `features`
(hashes included). Also checks the features' internal consistency with the token ids.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from tokenfront.config import ModelOptions
from tokenfront.tokenization.registry import ServedModel, load_model

REPO = Path(__file__).resolve().parents[3]
CORPUS = REPO / "tests" / "golden" / "vllm-dsv41vl.jsonl"
MODEL_DIR = REPO / "tests" / "models" / "deepseek-v41-vl"
BUILDER = REPO / "tests" / "models" / "deepseek-v41-vl-src" / "build.py"
IMAGE_ID = 129264


def _records() -> list[dict[str, Any]]:
    if not CORPUS.is_file():
        return []
    records = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()]
    return [r for r in records if r.get("mm_model_id") and r["endpoint"].endswith("/render")]


@pytest.fixture(scope="module")
def models() -> dict[str, ServedModel]:
    spec = importlib.util.spec_from_file_location("_dsv41vl_build", BUILDER)
    assert spec is not None and spec.loader is not None
    builder = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(builder)
        builder.build(MODEL_DIR)
    except OSError as exc:  # the shared DeepSeek tokenizer is missing
        pytest.skip(f"cannot build {MODEL_DIR.name}: {exc}")
    configs = json.loads((CORPUS.parent / "configs-dsv41vl.json").read_text(encoding="utf-8"))
    out = {}
    for name, config in configs.items():
        if name.startswith("_"):
            continue
        args = config["args"]
        limit = json.loads(args[args.index("--limit-mm-per-prompt") + 1]) if "--limit-mm-per-prompt" in args else None
        max_len = int(args[args.index("--max-model-len") + 1]) if "--max-model-len" in args else None
        out[name] = load_model(
            ModelOptions(
                model=str(MODEL_DIR),
                served_model_name=[config["served_model_name"]],
                tokenizer_mode="deepseek_v41",
                limit_mm_per_prompt=limit,
                max_model_len=max_len,
            )
        )
    return out


@pytest.mark.parametrize("record", _records(), ids=lambda r: r["id"])
def test_features_with_recorded_model_path(
    record: dict[str, Any], models: dict[str, ServedModel], render_as_recorded: Any
) -> None:
    answer = render_as_recorded(models[record["config"]], record)
    assert answer["features"] == record["response"]["features"]
    assert answer["token_ids"] == record["response"]["token_ids"]
    for span in answer["features"]["mm_placeholders"]["image"]:
        ids = answer["token_ids"][span["offset"] : span["offset"] + span["length"]]
        assert ids == [IMAGE_ID] * span["length"]
