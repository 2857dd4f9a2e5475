"""Incremental detokenization: prompt seeding, multi-byte characters, chunking, bounded window."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from transformers import AutoTokenizer

from tokenfront.tokenization.detokenizer import (
    REPLACEMENT_CHAR,
    DetokWindow,
    detokenize_delta,
    seed_window,
    tokenizer_view,
)

MODELS = Path(os.environ["TOKENFRONT_TEST_MODELS"])


def _tokenizer(folder: str):
    path = MODELS / folder
    if not path.is_dir():
        pytest.skip(f"shared model {path} not available")
    return AutoTokenizer.from_pretrained(str(path))


@pytest.fixture(scope="module")
def qwen3():
    return _tokenizer("qwen3")


@pytest.fixture(scope="module")
def spm():
    return _tokenizer("synthetic-spm")


@pytest.fixture(scope="module")
def llama3():
    return _tokenizer("llama3")


def _decode_chunks(tok, ids, chunks, prompt=None, skip=True):
    view = tokenizer_view(tok)
    window = seed_window(view, prompt, skip)
    parts = []
    start = 0
    for size in chunks:
        text, window = detokenize_delta(view, window, ids[start : start + size], skip, True)
        parts.append(text)
        start += size
    return parts, window


def test_multibyte_emoji_is_held_back_until_complete(qwen3) -> None:
    text = "falling 🍂 leaves"
    ids = qwen3.encode(text, add_special_tokens=False)
    parts, _ = _decode_chunks(qwen3, ids, [1] * len(ids))
    assert "".join(parts) == text
    assert all(REPLACEMENT_CHAR not in p for p in parts)
    # The emoji spans several byte-level tokens: some steps emit nothing.
    assert "" in parts


def test_chunking_does_not_change_the_text(qwen3, llama3) -> None:
    rng = random.Random(7)
    text = "Zürich: 東京 → naïve café 🍂🎉 done.\nSecond line with  spaces."
    for tok in (qwen3, llama3):
        ids = tok.encode(text, add_special_tokens=False)
        whole, _ = _decode_chunks(tok, ids, [len(ids)])
        for _ in range(5):
            sizes = []
            left = len(ids)
            while left:
                n = rng.randint(1, min(4, left))
                sizes.append(n)
                left -= n
            parts, _ = _decode_chunks(tok, ids, sizes)
            assert "".join(parts) == "".join(whole) == text


def test_spm_leading_space_needs_the_prompt_seed(spm) -> None:
    prompt = spm.encode("the cat sat", add_special_tokens=False)
    output = spm.encode("Hello world", add_special_tokens=False)
    seeded, _ = _decode_chunks(spm, output, [1] * len(output), prompt=prompt)
    unseeded, _ = _decode_chunks(spm, output, [1] * len(output), prompt=None)
    assert "".join(seeded) == " Hello world"
    assert "".join(unseeded) == "Hello world"


def test_spm_byte_fallback_split_characters(spm) -> None:
    text = " é ü ß 東京"
    prompt = spm.encode("the", add_special_tokens=False)
    ids = spm.encode(text.strip(), add_special_tokens=False)
    parts, _ = _decode_chunks(spm, ids, [1] * len(ids), prompt=prompt)
    assert "".join(parts) == text
    assert all(REPLACEMENT_CHAR not in p for p in parts)


def test_special_tokens_skipped_or_kept(qwen3) -> None:
    ids = [32, 151645, 33]  # "A<|im_end|>B"
    view = tokenizer_view(qwen3)
    skipped, _ = detokenize_delta(view, DetokWindow(), ids, True, True)
    kept, _ = detokenize_delta(view, DetokWindow(), ids, False, True)
    assert skipped == "AB"
    assert kept == "A<|im_end|>B"


def test_out_of_vocabulary_id_decodes_to_nothing(qwen3) -> None:
    view = tokenizer_view(qwen3)
    text, _ = detokenize_delta(view, DetokWindow(), [32, 10**7, 33], True, True)
    assert text == "AB"


def test_window_stays_bounded(qwen3) -> None:
    ids = qwen3.encode("word " * 600, add_special_tokens=False)
    view = tokenizer_view(qwen3)
    window = seed_window(view, ids[:20], True)
    assert len(window.tokens) <= 7
    for tid in ids:
        _, window = detokenize_delta(view, window, [tid], True, True)
        assert len(window.tokens) <= 8
        assert window.prefix_offset == 0


def test_seed_uses_only_the_prompt_tail(spm) -> None:
    view = tokenizer_view(spm)
    prompt = spm.encode("the cat sat on the mat", add_special_tokens=False)
    window = seed_window(view, prompt, True)
    assert len(window.tokens) == 7
    assert window.read_offset == 7
    assert window.prefix_offset == 2
    assert seed_window(view, [], True) == DetokWindow()


def test_token_strings_restore_spm_leading_space(spm) -> None:
    view = tokenizer_view(spm)
    ids = spm.encode("the cat", add_special_tokens=False)
    assert view.token_strings(ids) == [" the", " c", "at"]
    assert view.token_strings([10**6]) == [None]


def _reference(tok, prompt, ids, skip):
    """vLLM's per-token algorithm written plainly over the transformers API (no rebasing)."""
    if prompt:
        prev = tok.convert_ids_to_tokens(prompt[-7:], skip_special_tokens=skip)
        prev = [t if t is not None else "" for t in prev]
        read = len(prev)
        prefix = max(read - 5, 0)
    else:
        prev, prefix, read = [], 0, 0
    out = []
    for tid in ids:
        if 0 <= tid < len(tok):
            new = tok.convert_ids_to_tokens([tid], skip_special_tokens=skip)
            new = [t if t is not None else "" for t in new]
        else:
            new = [""]
        total = prev + new
        prefix_text = tok.convert_tokens_to_string(total[prefix:read])
        full = tok.convert_tokens_to_string(total[prefix:])
        prev = total
        if len(full) <= len(prefix_text) or full.endswith(REPLACEMENT_CHAR):
            out.append("")
            continue
        out.append(full[len(prefix_text) :])
        prefix, read = read, len(total)
    return out


@pytest.mark.parametrize("folder", ["qwen3", "synthetic-spm", "llama3"])
def test_matches_reference_algorithm_on_random_ids(folder) -> None:
    tok = _tokenizer(folder)
    view = tokenizer_view(tok)
    rng = random.Random(folder)
    specials = list(view.special_ids)
    for _ in range(60):

        def pick():
            roll = rng.random()
            if roll < 0.1 and specials:
                return rng.choice(specials)
            if roll < 0.13:
                return len(tok) + rng.randint(0, 50)
            if roll < 0.5:
                return rng.randrange(min(len(tok), 600))  # byte / short pieces
            return rng.randrange(len(tok))

        prompt = [pick() for _ in range(rng.randint(0, 10))]
        prompt = [t for t in prompt if t < len(tok)]
        ids = [pick() for _ in range(rng.randint(1, 25))]
        skip = rng.random() < 0.5
        expected = _reference(tok, prompt, ids, skip)
        window = seed_window(view, prompt, skip)
        got = []
        start = 0
        while start < len(ids):
            n = rng.randint(1, 4)
            text, window = detokenize_delta(view, window, ids[start : start + n], skip, True)
            got.append(text)
            assert text == "".join(expected[start : start + n])
            start += n
        assert len(window.tokens) <= len(prompt) + len(ids) + 1


@pytest.mark.parametrize("token_id", [-5, -(2**63), 2**32, 2**63 - 1, 2**63, -(2**63) - 1, 2**70])
def test_id_overflow_reads_as_the_tokenizers_bindings_error(token_id: int) -> None:
    # vLLM answers the binding's OverflowError text as a 400 message
    from tokenizers import Tokenizer

    from tokenfront.tokenization.detokenizer import id_overflow

    binding = Tokenizer.from_str('{"version": "1.0", "model": {"type": "BPE", "vocab": {}, "merges": []}}')
    with pytest.raises(OverflowError) as err:
        binding.id_to_token(token_id)
    assert str(id_overflow(token_id)) == str(err.value)
