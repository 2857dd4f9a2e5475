"""Which directories `load_fast_tokenizer` takes, and which it leaves to transformers."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tokenfront.tokenization import fast_loader
from tokenfront.tokenization.fast_loader import load_fast_tokenizer, resolve_class

QWEN3 = Path(os.environ["TOKENFRONT_TEST_MODELS"]) / "qwen3"


def _copy(src: Path, dst: Path, **config_changes: object) -> Path:
    dst.mkdir()
    for name in ("config.json", "tokenizer.json", "tokenizer_config.json", "generation_config.json"):
        if (src / name).exists():
            shutil.copy(src / name, dst / name)
    if config_changes:
        cfg = json.loads((dst / "tokenizer_config.json").read_text())
        for key, value in config_changes.items():
            if value is None:
                cfg.pop(key, None)
            else:
                cfg[key] = value
        (dst / "tokenizer_config.json").write_text(json.dumps(cfg))
    return dst


def test_tables_match_transformers_auto_mapping() -> None:
    from transformers.models.auto.tokenization_auto import (
        MODEL_IDS_TO_TOKENIZERS_BACKEND,
        MODELS_WITH_INCORRECT_HUB_TOKENIZER_CLASS,
        TOKENIZER_MAPPING_NAMES,
    )

    for model_type, registered in fast_loader.REGISTERED_TOKENIZER_CLASS.items():
        assert TOKENIZER_MAPPING_NAMES.get(model_type) == registered, model_type
        in_list = model_type in MODELS_WITH_INCORRECT_HUB_TOKENIZER_CLASS
        assert in_list == (model_type in fast_loader.INCORRECT_HUB_CLASS_MODEL_TYPES), model_type
    assert tuple(MODEL_IDS_TO_TOKENIZERS_BACKEND) == fast_loader._MODEL_IDS_TO_TOKENIZERS_BACKEND


@pytest.mark.parametrize("model_type", sorted(fast_loader.REGISTERED_TOKENIZER_CLASS))
@pytest.mark.parametrize("hub_class", ["Qwen2Tokenizer", "PreTrainedTokenizerFast"])
def test_class_resolution_matches_auto_tokenizer(tmp_path: Path, model_type: str, hub_class: str) -> None:
    from tokenizers import Tokenizer
    from tokenizers.models import BPE
    from transformers import AutoTokenizer

    path = tmp_path / "m"
    path.mkdir()
    vocab = {"a": 0, "b": 1, "ab": 2, "<|endoftext|>": 3}
    Tokenizer(BPE(vocab=vocab, merges=[("a", "b")])).save(str(path / "tokenizer.json"))
    (path / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": hub_class}))
    (path / "config.json").write_text(json.dumps({"model_type": model_type}))

    want = type(AutoTokenizer.from_pretrained(str(path))).__name__
    got = resolve_class(path, json.loads((path / "tokenizer_config.json").read_text()))
    assert got == want


def test_qwen2_file_and_config_added_tokens_may_differ(tmp_path: Path) -> None:
    """Qwen2Tokenizer takes its added tokens from tokenizer_config.json, not tokenizer.json."""
    from transformers import AutoTokenizer

    cfg = json.loads((QWEN3 / "tokenizer_config.json").read_text())
    decoder = cfg["added_tokens_decoder"]
    last = max(decoder, key=int)
    decoder.pop(last)  # drop the last configured added token
    path = _copy(QWEN3, tmp_path / "m", added_tokens_decoder=decoder)
    fast = load_fast_tokenizer(path)
    ref = AutoTokenizer.from_pretrained(str(path))
    assert fast is not None
    assert json.loads(fast.backend_tokenizer.to_str()) == json.loads(ref.backend_tokenizer.to_str())
    assert len(fast) == len(ref)


def test_unreproduced_setups_fall_back_to_transformers(tmp_path: Path) -> None:
    assert load_fast_tokenizer(QWEN3, trust_remote_code=True) is None
    cases = {
        "auto_map": {"auto_map": {"AutoTokenizer": ["x.Tok", None]}},
        "other_class": {"tokenizer_class": "LlamaTokenizer"},
        "no_class": {"tokenizer_class": None},
        "fix_regex": {"fix_mistral_regex": True},
    }
    for name, changes in cases.items():
        path = _copy(QWEN3, tmp_path / name, **changes)
        assert load_fast_tokenizer(path) is None, name
    no_json = _copy(QWEN3, tmp_path / "no_json")
    (no_json / "tokenizer.json").unlink()
    assert load_fast_tokenizer(no_json) is None
    added = _copy(QWEN3, tmp_path / "added_json")
    (added / "added_tokens.json").write_text("{}")
    assert load_fast_tokenizer(added) is None
    unknown_type = _copy(QWEN3, tmp_path / "unknown_type")
    cfg = json.loads((unknown_type / "config.json").read_text())
    cfg["model_type"] = "bert"
    (unknown_type / "config.json").write_text(json.dumps(cfg))
    assert load_fast_tokenizer(unknown_type) is None


def test_added_tokens_list_is_split_without_parsing_the_vocabulary() -> None:
    data = (QWEN3 / "tokenizer.json").read_bytes()
    found = fast_loader._split_added_tokens(data)
    assert found is not None
    added, rest = found
    whole = json.loads(data)
    assert added == whole["added_tokens"]
    stripped = json.loads(rest)
    assert stripped["added_tokens"] == []
    whole["added_tokens"] = []
    assert stripped == whole
    assert fast_loader._split_added_tokens(b'{"model": {}, "added_tokens": []}') is None
    assert fast_loader._split_added_tokens(b"[]") is None


def test_added_tokens_split_reads_past_the_first_chunk_and_keeps_utf8_offsets() -> None:
    # Non-ASCII contents before and inside the list (str and byte offsets differ) and a list
    # longer than the first chunk the splitter decodes.
    added = [{"id": i, "content": f"<|\u00e9t\u00e9_{i}|>", "special": True} for i in range(3000)]
    whole = {"version": "1.0", "normalizer": {"x": "\u2581\u00fc"}, "added_tokens": added,
             "model": {"vocab": {"\u00e9": 0}}}
    data = json.dumps(whole, ensure_ascii=False).encode("utf-8")
    assert len(data) > 1 << 16
    found = fast_loader._split_added_tokens(data)
    assert found is not None
    assert found[0] == added
    whole["added_tokens"] = []
    assert json.loads(found[1]) == whole
    # A chunk boundary inside a multi-byte character is not an error.
    for cut in range((1 << 16) - 3, (1 << 16) + 3):
        padded = b'{"pad": "' + "\u00e9".encode() * ((cut - 9) // 2) + b'", ' + data[1:]
        found = fast_loader._split_added_tokens(padded)
        assert found is not None and found[0] == added


def test_serving_a_model_does_not_import_transformers() -> None:
    code = (
        "import sys\n"
        "from tokenfront.config import ModelOptions\n"
        "from tokenfront.tokenization.registry import load_model\n"
        f"m = load_model(ModelOptions(model={str(QWEN3)!r}, tool_call_parser='hermes',"
        " enable_auto_tool_choice=True, reasoning_parser='qwen3'))\n"
        "from tokenfront.render.chat_template import render_chat\n"
        "render_chat(m.tokenizer, m.chat_template, [{'role': 'user', 'content': 'hi'}], None,"
        " {'add_generation_prompt': True})\n"
        "print(type(m.tokenizer).__name__, 'transformers' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["FastTokenizer", "False"]


def test_environment_flag_selects_transformers(monkeypatch: pytest.MonkeyPatch) -> None:
    from tokenfront.config import ModelOptions
    from tokenfront.tokenization.registry import load_model

    monkeypatch.setenv("TOKENFRONT_TRANSFORMERS_TOKENIZER", "1")
    model = load_model(ModelOptions(model=str(QWEN3)))
    assert type(model.tokenizer).__name__ == "Qwen2Tokenizer"
