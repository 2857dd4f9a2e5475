"""`FastTokenizer` (tokenizers directly) equals transformers 5.20.2's tokenizer on every model dir.

For each model directory of ../shared/models and tests/models the Rust backend must serialize
to the same JSON as `AutoTokenizer.from_pretrained(dir).backend_tokenizer`, and every method
tokenfront calls must answer the same on a varied corpus (transformers is used here only).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tokenfront.tokenization.fast_loader import load_fast_tokenizer
from tokenfront.tokenization.fast_tokenizer import FastTokenizer

_REPO = Path(__file__).resolve().parents[2]
_SHARED = Path(os.environ["TOKENFRONT_TEST_MODELS"])


def _model_dirs() -> list[Path]:
    dirs = sorted(_SHARED.glob("*/")) + sorted((_REPO / "tests" / "models").glob("*/"))
    return [
        d
        for d in dirs
        if (d / "tokenizer_config.json").is_file() and (d / "tokenizer.json").is_file()
    ]


MODEL_DIRS = _model_dirs()
IDS = [f"{d.parent.name}/{d.name}" for d in MODEL_DIRS]

CORPUS = [
    "",
    " ",
    "Hello, world!",
    "  leading and trailing spaces  ",
    "tabs\tand\nnewlines\r\n\n\nmixed",
    "Ünïcödé wörds, ñ, ß, İstanbul, ǅ, ﬁ ligature",
    "日本語のテキストと中文字符，한국어",
    "emoji 🎉👩‍👩‍👧‍👦 and flags 🇫🇷 and skin 👍🏽",
    "numbers 1234567890 3.14159 -42 1e10 0x1F",
    "code: def f(x):\n    return {'a': [1, 2]}  # comment\n",
    "contractions: I'm, you're, it's, we've, they'll, don't, I'd",
    "punctuation ... !!! ??? ,,, ;;; ::: --- ___",
    "Cyrillic Привет мир, Greek Γειά σου, Arabic مرحبا, Hebrew שלום",
    "combining e\u0301 vs \u00e9, NFC/NFD \u1e9b\u0323",
    "zero\u200bwidth and nbsp\u00a0here and \u3000 ideographic",
    "<think>\nreasoning\n</think>\n\nanswer",
    "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>",
    "a" * 300,
    "The quick brown fox jumps over the lazy dog. " * 5,
]


def _pair(path: Path) -> tuple[FastTokenizer | None, Any]:
    from transformers import AutoTokenizer

    kwargs: dict[str, Any] = {}
    if (path / "tekken.json").exists() or any(path.glob("tokenizer.model.v*")):
        kwargs["mistral_format"] = False  # as the registry asks
    return load_fast_tokenizer(path), AutoTokenizer.from_pretrained(str(path), **kwargs)


def _texts(ref: Any) -> list[str]:
    specials = list(ref.get_added_vocab())[:12]
    mixed = [f"x{t}y {t} z" for t in specials[:6]]
    return [*CORPUS, "".join(specials), *mixed]


@pytest.fixture(scope="module", params=MODEL_DIRS, ids=IDS)
def pair(request: pytest.FixtureRequest) -> tuple[FastTokenizer, Any]:
    # Module scope: pytest runs every test of one directory before loading the next.
    fast, ref = _pair(request.param)
    assert fast is not None, f"{request.param} fell back to transformers"
    return fast, ref


def test_every_model_dir_loads_without_transformers_and_picks_the_same_class(pair) -> None:
    fast, ref = pair
    assert fast.class_name == type(ref).__name__


def test_backend_serializes_to_the_same_json(pair) -> None:
    fast, ref = pair
    assert json.loads(fast.backend_tokenizer.to_str()) == json.loads(ref.backend_tokenizer.to_str())
    assert fast.backend_tokenizer.encode_special_tokens == ref.backend_tokenizer.encode_special_tokens


def test_sizes_and_named_special_token_ids_match(pair) -> None:
    fast, ref = pair
    assert len(fast) == len(ref)
    assert fast.vocab_size == ref.vocab_size
    for name in ("bos", "eos", "pad", "unk", "sep", "cls", "mask"):
        assert getattr(fast, f"{name}_token") == getattr(ref, f"{name}_token"), name
        assert getattr(fast, f"{name}_token_id") == getattr(ref, f"{name}_token_id"), name
    assert fast.special_tokens_map == ref.special_tokens_map
    assert fast.all_special_tokens == ref.all_special_tokens
    assert fast.all_special_ids == ref.all_special_ids
    assert fast.extra_special_tokens == ref.extra_special_tokens


def test_vocabularies_and_added_tokens_match(pair) -> None:
    fast, ref = pair
    assert fast.get_vocab() == ref.get_vocab()
    assert fast.get_added_vocab() == ref.get_added_vocab()
    assert {i: t.__getstate__() for i, t in fast.added_tokens_decoder.items()} == {
        i: t.__getstate__() for i, t in ref.added_tokens_decoder.items()
    }


def test_single_token_lookup_matches_the_vocabulary(pair) -> None:
    # tokenization.vocab.token_lookup answers marker lookups with token_to_id, not get_vocab.
    fast, _ = pair
    vocab = fast.get_vocab()
    assert all(fast.token_to_id(token) == index for token, index in vocab.items())
    assert fast.token_to_id("<no such token \u2603>") is None


def test_settings_read_by_tokenfront_match(pair) -> None:
    fast, ref = pair
    assert fast.chat_template == ref.chat_template
    assert fast.response_template == ref.response_template
    assert fast.clean_up_tokenization_spaces == ref.clean_up_tokenization_spaces
    assert fast.split_special_tokens == ref.split_special_tokens
    assert fast.model_max_length == ref.model_max_length
    assert fast.is_fast is ref.is_fast is True
    for key in ("token_suffix", "model_specific_special_tokens", "response_template"):
        assert repr(fast.init_kwargs.get(key)) == repr(ref.init_kwargs.get(key)), key


def test_encode_and_call_match_with_and_without_special_tokens(pair) -> None:
    fast, ref = pair
    for text in _texts(ref):
        for add in (True, False):
            assert fast.encode(text, add_special_tokens=add) == ref.encode(text, add_special_tokens=add)
            got = fast(text, add_special_tokens=add, return_offsets_mapping=True)
            want = ref(text, add_special_tokens=add, return_offsets_mapping=True)
            assert got["input_ids"] == want["input_ids"]
            assert got["attention_mask"] == want["attention_mask"]
            assert [tuple(o) for o in got["offset_mapping"]] == [tuple(o) for o in want["offset_mapping"]]
        assert fast.tokenize(text) == ref.tokenize(text)


def test_decode_matches_for_skip_special_tokens_and_clean_up(pair) -> None:
    fast, ref = pair
    for text in _texts(ref):
        ids = ref.encode(text)
        for skip in (False, True):
            assert fast.decode(ids, skip_special_tokens=skip) == ref.decode(ids, skip_special_tokens=skip)
            for cleanup in (True, False):
                assert fast.decode(
                    ids, skip_special_tokens=skip, clean_up_tokenization_spaces=cleanup
                ) == ref.decode(ids, skip_special_tokens=skip, clean_up_tokenization_spaces=cleanup)
        if ids:
            assert fast.decode(ids[0]) == ref.decode(ids[0])
            assert fast.decode([ids, ids[:1]]) == ref.decode([ids, ids[:1]])


def test_token_id_conversions_match(pair) -> None:
    fast, ref = pair
    ids = ref.encode("".join(_texts(ref)))
    specials = ref.all_special_ids
    sample = [*ids[:200], *specials, 0, 1, len(ref) - 1]
    for skip in (False, True):
        assert fast.convert_ids_to_tokens(sample, skip_special_tokens=skip) == ref.convert_ids_to_tokens(
            sample, skip_special_tokens=skip
        )
    assert fast.convert_ids_to_tokens(sample[0]) == ref.convert_ids_to_tokens(sample[0])
    tokens = ref.convert_ids_to_tokens(sample)
    unknown = ["definitely-not-a-token-\u2603", *ref.all_special_tokens]
    assert fast.convert_tokens_to_ids(tokens + unknown) == ref.convert_tokens_to_ids(tokens + unknown)
    assert fast.convert_tokens_to_ids(tokens[0]) == ref.convert_tokens_to_ids(tokens[0])
    assert fast.convert_tokens_to_string(tokens) == ref.convert_tokens_to_string(tokens)


def test_out_of_range_ids_fail_like_transformers(pair) -> None:
    fast, ref = pair
    for ids in ([len(ref) + 10], [2**40]):
        outcomes = []
        for tok in (fast, ref):
            try:
                outcomes.append(("ok", tok.decode(ids)))
            except Exception as exc:  # the Rust binding's error, whatever it is
                outcomes.append((type(exc).__name__, str(exc)))
        assert outcomes[0] == outcomes[1]


def test_unknown_attributes_raise_attribute_error(pair) -> None:
    fast, _ = pair
    assert getattr(fast, "supports_grammar", False) is False
    assert getattr(fast, "make_tokenizer_view", None) is None
    with pytest.raises(AttributeError):
        fast.no_such_attribute  # noqa: B018
