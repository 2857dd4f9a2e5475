"""`PromptEncoder` gives exactly the ids of `tokenizers.Tokenizer.encode`, only faster."""

from __future__ import annotations

import functools
import os
import string
from pathlib import Path
from typing import Any

import pytest
import tokenizers
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenfront.tokenization.prompt_encoder import (
    _WORD_CACHE_LIMIT,
    PromptEncoder,
    _ascii_pattern,
)

MODELS = Path(os.environ["TOKENFRONT_TEST_MODELS"])
REPO_MODELS = Path(__file__).resolve().parents[1] / "models"
# One tokenizer per pre-tokenizer family: Qwen2 regex + NFC, Llama 3 regex + BOS template,
# DeepSeek's three Splits + normalized added tokens, Mistral's tekken regex, o200k (gpt-oss).
FAMILIES = {
    "qwen3": MODELS / "qwen3",
    "llama3": MODELS / "llama3",
    "deepseek": MODELS / "deepseek",
    "mistral": MODELS / "mistral",
    "gpt-oss": REPO_MODELS / "gpt-oss",
}

TEXTS = [
    "Hello, world! It's a test.",
    "  leading and trailing  \n\n",
    "I'LL say it: we'Re   done; they've\tleft.\r\n",
    "x = f(a, b) -> {'k': [1, 2, 3]}  # 1234567 89.5e-3",
    "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
    "caf\u00e9 na\u00efve \u4e2d\u6587 \U0001f600 mixed with ASCII words",
    "tabs\tand\x0bvertical\x0cfeeds\x1c\x1f and \u00a0nbsp",
    "",
    " ",
    "\n",
    "a" * 300 + " " + "b" * 5,
]


@functools.cache
def _backend(name: str) -> Any:
    return tokenizers.Tokenizer.from_file(str(FAMILIES[name] / "tokenizer.json"))


@functools.cache
def _encoder(name: str) -> PromptEncoder:
    encoder = PromptEncoder.for_backend(_backend(name))
    assert encoder is not None
    return encoder


def _with_added_tokens(name: str, text: str) -> str:
    added = [t.content for t in _backend(name).get_added_tokens_decoder().values()]
    return f"{added[0]}{text}{added[-1]} middle {added[len(added) // 2]}{text}"


@pytest.mark.parametrize("name", sorted(FAMILIES))
@pytest.mark.parametrize("add_special_tokens", [False, True])
def test_ids_equal_the_tokenizers_encode(name: str, add_special_tokens: bool) -> None:
    backend, encoder = _backend(name), _encoder(name)
    for text in TEXTS + [_with_added_tokens(name, t) for t in TEXTS]:
        expected = backend.encode(text, add_special_tokens=add_special_tokens).ids
        assert encoder.encode(text, add_special_tokens) == expected, repr(text)


_PIECES = st.sampled_from(
    list(string.printable)
    + ["'s", "'LL", "'re", "\r\n", "   ", "123456", "caf\u00e9", "\u4e2d", "\U0001f600", "\u00a0"]
)


@pytest.mark.parametrize("name", ["qwen3", "deepseek", "llama3"])
@settings(max_examples=150, deadline=None)
@given(pieces=st.lists(_PIECES, max_size=60), added_at=st.lists(st.integers(0, 60), max_size=3))
def test_random_text_with_added_tokens_matches(
    name: str, pieces: list[str], added_at: list[int]
) -> None:
    backend = _backend(name)
    added = [t.content for t in backend.get_added_tokens_decoder().values()]
    for n, at in enumerate(added_at):
        pieces.insert(min(at, len(pieces)), added[(at * 7 + n) % len(added)])
    text = "".join(pieces)
    assert _encoder(name).encode(text, False) == backend.encode(text, add_special_tokens=False).ids


def test_split_special_tokens_uses_the_tokenizer() -> None:
    backend, encoder = _backend("qwen3"), _encoder("qwen3")
    text = "<|im_start|>user\nhi<|im_end|>"
    backend.encode_special_tokens = True
    try:
        assert encoder.encode(text, False) == backend.encode(text, add_special_tokens=False).ids
        assert len(encoder.encode(text, False)) > 4  # the markers were spelled out, not matched
    finally:
        backend.encode_special_tokens = False


def test_metaspace_tokenizers_get_no_encoder() -> None:
    backend = tokenizers.Tokenizer.from_file(str(MODELS / "synthetic-spm" / "tokenizer.json"))
    assert PromptEncoder.for_backend(backend) is None


def test_word_cache_stays_bounded() -> None:
    encoder = PromptEncoder.for_backend(_backend("qwen3"))
    assert encoder is not None
    encoder.encode(" ".join(f"w{i}" for i in range(_WORD_CACHE_LIMIT + 10)), False)
    assert len(encoder._words) <= _WORD_CACHE_LIMIT


def test_ascii_pattern_spells_out_unicode_categories() -> None:
    compiled = _ascii_pattern(r"[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[\p{P}\p{S}]+")
    assert compiled is not None
    assert compiled.findall("ab12345 $+x-y") == ["ab", "123", "45", " $+", "x", "-y"]


@pytest.mark.parametrize("source", [r"\h+", r"[[:alpha:]]+", r"\p{Han}+", r"[\p{M}]", r"\X"])
def test_ascii_pattern_refuses_what_it_cannot_translate(source: str) -> None:
    assert _ascii_pattern(source) is None
