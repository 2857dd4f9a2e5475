"""The byte-level fast path of the incremental detokenizer gives exactly what decoding the
pieces with the tokenizer's own (Rust) decoder gives: same texts per chunk, same window."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from tokenfront.tokenization import detokenizer as detok

MODELS = Path(os.environ["TOKENFRONT_TEST_MODELS"])
TEXTS = [
    "Hello wörld 你好 🎉🎉 emoji 👩‍👩‍👧 ",
    '<think>\nabc</think>\n\n<tool_call>{"a": 1}</tool_call>',
    "日本語のテキスト、テスト。\t\n  spaces",
    "ÿþ\x00\x01 control \ufffd\ufffdx\ufffd",
]


def _run(view, prompt, chunks, skip):
    window = detok.seed_window(view, prompt, skip)
    texts = []
    for chunk in chunks:
        text, window = detok.detokenize_delta(view, window, chunk, skip, True)
        texts.append(text)
    return texts, window.tokens, window.prefix_offset, window.read_offset


@pytest.mark.parametrize("model", ["qwen3", "llama3"])
def test_byte_level_path_matches_the_decoder(model: str, monkeypatch) -> None:
    if not (MODELS / model).is_dir():
        pytest.skip(f"shared model {model} not available")
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(MODELS / model))
    view = detok.TokenizerView(tok)
    assert view.byte_level
    rng = random.Random(7)
    specials = sorted(view.special_ids)
    prompt = tok.encode("some prompt ✓", add_special_tokens=False)
    for _ in range(150):
        ids: list[int] = []
        for _ in range(rng.randint(1, 6)):
            roll = rng.random()
            if roll < 0.5:
                text = rng.choice(TEXTS)
                start = rng.randrange(len(text))
                ids += tok.encode(
                    text[start : start + rng.randint(1, 20)], add_special_tokens=False
                )
            elif roll < 0.7:
                ids.append(rng.choice(specials))
            elif roll < 0.8:
                ids.append(rng.choice([view.length + 5, 0, view.length - 1]))
            else:
                ids.append(rng.randrange(view.length))
        cuts = (
            sorted(rng.sample(range(1, len(ids)), k=min(len(ids) - 1, 4))) if len(ids) > 1 else []
        )
        chunks = [ids[a:b] for a, b in zip([0, *cuts], [*cuts, len(ids)], strict=True)]
        skip = rng.random() < 0.5
        fast = _run(view, prompt, chunks, skip)
        monkeypatch.setattr(view, "byte_level", False)
        slow = _run(view, prompt, chunks, skip)
        monkeypatch.setattr(view, "byte_level", True)
        assert fast == slow, (ids, skip)
