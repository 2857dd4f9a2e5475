"""Build the deepseek-v41-vl test model directory (tokenizer and configs, no weights) on demand.

DeepSeek V4.1's vision path in vLLM 0.33.0 wants `<｜deepseek_image｜>` at id 129264 and a
`deepseek_v41` config (text model nested under `text_config`, a `vision_config`). The shared
DeepSeek tokenizer has `<｜image2｜>` at that id, so the build renames that added token; the
rest is tests/models/deepseek-v41 (tokenizer config without its own 129281 image token, its
generation config) and a tiny vision config. The output is git-ignored.

    python tests/models/deepseek-v41-vl-src/build.py [OUT_DIR]   # default tests/models/deepseek-v41-vl
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent
MODELS = SRC.parent
DEFAULT_OUT = MODELS / "deepseek-v41-vl"
SHARED_TOKENIZER = MODELS.parents[2] / "shared" / "models" / "deepseek" / "tokenizer.json"
IMAGE_TOKEN = "<｜deepseek_image｜>"
IMAGE_ID = 129264
STAMP = "build-stamp.json"
VERSION = 2
VISION = {
    "num_hidden_layers": 1,
    "hidden_size": 64,
    "num_attention_heads": 2,
    "intermediate_size": 128,
    "patch_size": 14,
    "downsample_ratio": 3,
    "max_image_tokens": 64,
    "min_pixels": 3136,
}


def _tokenizer() -> dict:
    data = json.loads(SHARED_TOKENIZER.read_text(encoding="utf-8"))
    for token in data["added_tokens"]:
        if token["id"] == IMAGE_ID:
            token["content"] = IMAGE_TOKEN
    # Only the added token is renamed: putting it into the BPE vocabulary as well makes the
    # tokenizers library renumber the added tokens (every marker id shifts by one).
    vocab = data["model"]["vocab"]
    for key in [k for k, v in vocab.items() if v == IMAGE_ID]:
        del vocab[key]
    return data


def _tokenizer_config() -> dict:
    config = json.loads(
        (MODELS / "deepseek-v41" / "tokenizer_config.json").read_text(encoding="utf-8")
    )
    decoder = config.get("added_tokens_decoder", {})
    decoder.pop("129281", None)
    if str(IMAGE_ID) in decoder:
        decoder[str(IMAGE_ID)]["content"] = IMAGE_TOKEN
    return config


def _config() -> dict:
    text = json.loads((MODELS / "deepseek-v41" / "config.json").read_text(encoding="utf-8"))
    architectures = text.pop("architectures")
    text.pop("model_type", None)
    return {
        "architectures": architectures,
        "model_type": "deepseek_v41",
        "text_config": text,
        "vision_config": VISION,
        "vocab_size": text["vocab_size"],
        "max_position_embeddings": text["max_position_embeddings"],
    }


def build(out: Path = DEFAULT_OUT) -> Path:
    stamp = out / STAMP
    if stamp.is_file() and json.loads(stamp.read_text()).get("version") == VERSION:
        return out
    out.mkdir(parents=True, exist_ok=True)
    files = {
        "tokenizer.json": _tokenizer(),
        "tokenizer_config.json": _tokenizer_config(),
        "config.json": _config(),
        "generation_config.json": json.loads(
            (MODELS / "deepseek-v41" / "generation_config.json").read_text()
        ),
    }
    for name, data in files.items():
        (out / name).write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    (out / ".gitignore").write_text("*\n")
    stamp.write_text(json.dumps({"version": VERSION}))
    return out


if __name__ == "__main__":
    print(build(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_OUT))
