"""`chunk_pieces.token_pieces` reads each token's text from the last anchor (every 128 tokens)
plus a few tokens of context, checking each window's end against its prefix decoded whole
(first window) or the chunk text, instead of decoding every prefix of the chunk: the pieces
must be exactly those of decoding every prefix, for byte-level and SentencePiece tokenizers,
characters split across tokens, special tokens, and chunk texts the decoded tokens do not
start."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest
import xml_support

from tokenfront.parsers.engines.chunk_pieces import token_pieces

MODELS = ("qwen3", "synthetic-spm", "mistral", "llama3", "deepseek")
SAMPLES = (
    "The quick brown fox", " jumps", "\n\n", "日本語のテキスト", "😀🎉", "naïve café", "  x  ",
    "<tool_calls>", "</tool_calls>", '{"name": "f", "arguments": {"a": 1}}', "\t1.5e3", "Ω≈ç√",
)  # fmt: skip


def _every_prefix(tokenizer: Any, text: str, ids: Sequence[int]) -> list[tuple[str, list[int]]]:
    """The pieces as read before the anchors (the contract): every prefix decoded whole."""
    pieces: list[tuple[str, list[int]]] = []
    shown = ""
    for k, token in enumerate(ids):
        upto = tokenizer.decode(list(ids[: k + 1]), skip_special_tokens=False)
        if upto.endswith("\ufffd") or not text.startswith(upto):
            pieces.append(("", [token]))
            continue
        pieces.append((upto[len(shown) :], [token]))
        shown = upto
    if pieces:
        last_text, last_ids = pieces[-1]
        pieces[-1] = (last_text + text[len(shown) :], last_ids)
    return pieces


@pytest.mark.parametrize("model", MODELS)
def test_token_texts_read_from_anchors_equal_every_prefix_decoded(model: str) -> None:
    tokenizer = xml_support.tokenizer(model)
    rng = random.Random(f"2310-{model}")
    vocab = len(tokenizer)
    for _ in range(12):
        text = "".join(rng.choice(SAMPLES) for _ in range(rng.randint(1, 120)))
        ids = tokenizer.encode(text, add_special_tokens=False)
        if rng.random() < 0.5:  # odd tokens: byte pieces, special tokens, any id
            for _ in range(rng.randint(1, 20)):
                ids.insert(rng.randrange(len(ids) + 1), rng.randrange(vocab))
        chunk_text = tokenizer.decode(ids, skip_special_tokens=False)
        if rng.random() < 0.3:  # a chunk text that differs from the tokens' own decoding
            cut = rng.randrange(len(chunk_text) + 1)
            chunk_text = chunk_text[:cut] + "~" + chunk_text[cut:]
        assert token_pieces(tokenizer, chunk_text, ids) == _every_prefix(tokenizer, chunk_text, ids)
