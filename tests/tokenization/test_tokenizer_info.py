"""`GET /tokenizer_info`'s answer (vLLM's goldens: tests/golden/vllm-tokenizerinfo.jsonl)."""

from __future__ import annotations

import json
from pathlib import Path

from tokenfront.config import ModelOptions
from tokenfront.tokenization.registry import load_model
from tokenfront.tokenization.tokenizer_info import tokenizer_info

HY4 = Path(__file__).resolve().parents[1] / "models" / "hy4-opensource"


def test_the_answer_is_the_transformers_config_under_vllms_class_name() -> None:
    model = load_model(ModelOptions(model=str(HY4), served_model_name=["hy"]))
    info = tokenizer_info(model)
    assert info["tokenizer_class"].startswith("TokenizerPoolCached")
    assert info["truncation_side"] == "left"  # vLLM loads generating models' tokenizers so
    assert "vocab_file" not in info and "merges_file" not in info
    json.dumps(info)  # added tokens as text, their ids as string keys
    assert tokenizer_info(model) is info  # loaded once


def test_a_given_chat_template_replaces_the_tokenizers() -> None:
    template = "{% for m in messages %}{{ m['content'] }}{% endfor %}"
    model = load_model(ModelOptions(model=str(HY4), served_model_name=["hy"], chat_template=template))
    assert tokenizer_info(model)["chat_template"] == template
