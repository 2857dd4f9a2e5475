"""The registry keeps no Python copy of the vocabulary once the Rust backend is built."""

from __future__ import annotations

import os
from pathlib import Path

from transformers import AutoTokenizer

from tokenfront.config import ModelOptions
from tokenfront.tokenization.registry import load_model, release_construction_tables

QWEN3 = Path(os.environ["TOKENFRONT_TEST_MODELS"]) / "qwen3"
TEXT = "Hello <|im_start|>wörld 🎉 <think>x</think>\n\n  tabs\tand 12345"


def test_loaded_model_drops_the_build_time_vocabulary_and_merges(monkeypatch) -> None:
    monkeypatch.setenv("TOKENFRONT_TRANSFORMERS_TOKENIZER", "1")  # the transformers path
    model = load_model(ModelOptions(model=str(QWEN3)))
    assert model.tokenizer._vocab is None
    assert model.tokenizer._merges is None


def test_tokenizers_built_directly_keep_no_python_tables() -> None:
    model = load_model(ModelOptions(model=str(QWEN3)))
    assert type(model.tokenizer).__name__ == "FastTokenizer"
    assert not {"_vocab", "_merges"} & vars(model.tokenizer).keys()
    assert release_construction_tables(model.tokenizer) == []


def test_dropping_the_tables_changes_no_encode_decode_or_vocabulary() -> None:
    kept = AutoTokenizer.from_pretrained(str(QWEN3))
    dropped = AutoTokenizer.from_pretrained(str(QWEN3))
    assert release_construction_tables(dropped) == ["_vocab", "_merges"]
    ids = kept.encode(TEXT)
    assert dropped.encode(TEXT) == ids
    assert dropped.decode(ids) == kept.decode(ids)
    assert dropped.get_vocab() == kept.get_vocab()
    assert dropped.convert_ids_to_tokens(ids) == kept.convert_ids_to_tokens(ids)


def test_tokenizers_of_other_libraries_are_left_alone() -> None:
    class Reader:  # not a transformers class: left alone
        def __init__(self) -> None:
            self._vocab = {"a": 0}

    reader = Reader()
    assert release_construction_tables(reader) == []
    assert reader._vocab == {"a": 0}


def test_start_up_parser_check_builds_no_python_vocabulary() -> None:
    # The parsers are built once against the tokenizer at load (vLLM's start-up check); their
    # marker lookups go through token_to_id, leaving the vocabulary dict (~0.1 s, ~20 MB on
    # Qwen3) to the first request that needs it whole.
    from tokenfront.tokenization.vocab import _VOCABS

    model = load_model(
        ModelOptions(
            model=str(QWEN3), tool_call_parser="hermes", enable_auto_tool_choice=True, reasoning_parser="qwen3"
        )
    )
    assert model.parser is not None
    assert model.tokenizer not in _VOCABS
