"""Build the gpt-oss test model directory (tokenizer and configs, no weights) on demand.

Source: `o200k_base.bytes.xz` (the o200k_base BPE tokens in rank order, each with a one-byte
length prefix; made by `scripts/o200k_from_js_tiktoken.py` from the npm package js-tiktoken).
The build checks the reconstructed `o200k_base.tiktoken` against OpenAI's sha256 and writes

- `o200k_base.tiktoken` (what openai_harmony loads through TIKTOKEN_ENCODINGS_BASE),
- `tokenizer.json`: byte-level BPE equal to o200k_base plus the Harmony special tokens at
  ids 199998-201087 with their gpt-oss names (o200k_harmony),
- `tokenizer_config.json` (chat template from `chat_template.jinja`), `config.json`
  (model_type gpt_oss) and `generation_config.json` with gpt-oss's eos ids.

    python tests/models/gpt-oss-src/build.py [OUT_DIR]     # default tests/models/gpt-oss
"""

from __future__ import annotations

import base64
import hashlib
import json
import lzma
import os
import sys
import tempfile
from pathlib import Path

SRC = Path(__file__).resolve().parent
DEFAULT_OUT = SRC.parent / "gpt-oss"
TIKTOKEN_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
STAMP = "build-stamp.json"
VERSION = 1

# o200k_base's pre-tokenisation pattern (contractions spelled out, as Oniguruma wants them).
_CONTRACTIONS = "('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)?"
PATTERN = "|".join(
    [
        r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+" + _CONTRACTIONS,
        r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*" + _CONTRACTIONS,
        r"\p{N}{1,3}",
        r" ?[^\s\p{L}\p{N}]+[\r\n/]*",
        r"\s*[\r\n]+",
        r"\s+(?!\S)",
        r"\s+",
    ]
)

NAMED_SPECIALS = {
    199998: "<|startoftext|>",
    199999: "<|endoftext|>",
    200002: "<|return|>",
    200003: "<|constrain|>",
    200005: "<|channel|>",
    200006: "<|start|>",
    200007: "<|end|>",
    200008: "<|message|>",
    200012: "<|call|>",
    200018: "<|endofprompt|>",
}
FIRST_SPECIAL, LAST_SPECIAL = 199998, 201087

CONFIG = {
    "architectures": ["GptOssForCausalLM"],
    "attention_bias": True,
    "attention_dropout": 0.0,
    "eos_token_id": 200002,
    "experts_per_token": 4,
    "head_dim": 64,
    "hidden_act": "silu",
    "hidden_size": 2880,
    "initial_context_length": 4096,
    "initializer_range": 0.02,
    "intermediate_size": 2880,
    "layer_types": ["sliding_attention", "full_attention"] * 12,
    "max_position_embeddings": 131072,
    "model_type": "gpt_oss",
    "num_attention_heads": 64,
    "num_experts_per_tok": 4,
    "num_hidden_layers": 24,
    "num_key_value_heads": 8,
    "num_local_experts": 32,
    "output_router_logits": False,
    "pad_token_id": 199999,
    "rms_norm_eps": 1e-05,
    "rope_scaling": {
        "beta_fast": 32.0,
        "beta_slow": 1.0,
        "factor": 32.0,
        "original_max_position_embeddings": 4096,
        "rope_type": "yarn",
        "truncate": False,
    },
    "rope_theta": 150000,
    "router_aux_loss_coef": 0.9,
    "sliding_window": 128,
    "swiglu_limit": 7.0,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.55.0.dev0",
    "use_cache": True,
    "vocab_size": 201088,
}
GENERATION_CONFIG = {
    "bos_token_id": 199998,
    "do_sample": True,
    "eos_token_id": [200002, 199999, 200012],
    "pad_token_id": 199999,
    "transformers_version": "4.55.0.dev0",
}


def special_name(token_id: int) -> str:
    return NAMED_SPECIALS.get(token_id, f"<|reserved_{token_id}|>")


def load_tokens() -> list[bytes]:
    """o200k_base's tokens in rank order."""
    raw = lzma.decompress((SRC / "o200k_base.bytes.xz").read_bytes())
    tokens: list[bytes] = []
    pos = 0
    while pos < len(raw):
        size = raw[pos]
        tokens.append(raw[pos + 1 : pos + 1 + size])
        pos += 1 + size
    return tokens


def tiktoken_file(tokens: list[bytes]) -> str:
    text = "".join(f"{base64.b64encode(t).decode()} {rank}\n" for rank, t in enumerate(tokens))
    digest = hashlib.sha256(text.encode()).hexdigest()
    if digest != TIKTOKEN_SHA256:
        raise ValueError(f"o200k_base.tiktoken sha256 {digest} is not the official {TIKTOKEN_SHA256}")
    return text


def byte_alphabet() -> list[str]:
    """Byte-level BPE's printable stand-in for each byte value."""
    kept = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAC + 1), *range(0xAE, 0xFF + 1)]
    table: dict[int, str] = {b: chr(b) for b in kept}
    extra = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + extra)
            extra += 1
    return [table[b] for b in range(256)]


def vocab_and_merges(tokens: list[bytes]) -> tuple[dict[str, int], list[tuple[str, str]]]:
    """HF BPE vocab and merges that reproduce tiktoken's rank-ordered merging.

    Every split of a token into two tokens is a merge, ranked by the merged token's rank
    (ties by the pieces' ranks), so the lowest-rank pair always merges first.
    """
    alphabet = byte_alphabet()
    names = ["".join(alphabet[b] for b in t) for t in tokens]
    vocab = {name: rank for rank, name in enumerate(names)}
    by_bytes = {t: rank for rank, t in enumerate(tokens)}
    merges: list[tuple[int, int, int]] = []
    for rank, token in enumerate(tokens):
        if len(token) < 2:
            continue
        pairs = []
        for cut in range(1, len(token)):
            left, right = by_bytes.get(token[:cut]), by_bytes.get(token[cut:])
            if left is not None and right is not None:
                pairs.append((rank, left, right))
        merges.extend(sorted(pairs))
    return vocab, [(names[a], names[b]) for _, a, b in merges]


def tokenizer_json(tokens: list[bytes]) -> str:
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers

    vocab, merges = vocab_and_merges(tokens)
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges, ignore_merges=False))
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(PATTERN), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    if tok.get_vocab_size() != FIRST_SPECIAL:
        raise ValueError(f"expected {FIRST_SPECIAL} BPE tokens, got {tok.get_vocab_size()}")
    tok.add_special_tokens(
        [
            AddedToken(special_name(i), special=True, normalized=False)
            for i in range(FIRST_SPECIAL, LAST_SPECIAL + 1)
        ]
    )
    for i in (FIRST_SPECIAL, 200008, LAST_SPECIAL):
        if tok.token_to_id(special_name(i)) != i:
            raise ValueError(f"{special_name(i)} did not land on id {i}")
    return tok.to_str()


def tokenizer_config() -> dict[str, object]:
    return {
        "added_tokens_decoder": {
            str(i): {
                "content": special_name(i),
                "lstrip": False,
                "normalized": False,
                "rstrip": False,
                "single_word": False,
                "special": True,
            }
            for i in range(FIRST_SPECIAL, LAST_SPECIAL + 1)
        },
        "bos_token": "<|startoftext|>",
        "chat_template": (SRC / "chat_template.jinja").read_text(encoding="utf-8"),
        "clean_up_tokenization_spaces": False,
        "eos_token": "<|return|>",
        "extra_special_tokens": {},
        "model_input_names": ["input_ids", "attention_mask"],
        "model_max_length": 1000000000000000019884624838656,
        "pad_token": "<|endoftext|>",
        "tokenizer_class": "PreTrainedTokenizerFast",
    }


def _source_digest() -> str:
    h = hashlib.sha256(str(VERSION).encode())
    for name in ("o200k_base.bytes.xz", "chat_template.jinja", "build.py"):
        h.update((SRC / name).read_bytes())
    return h.hexdigest()


def is_built(out: Path = DEFAULT_OUT) -> bool:
    stamp = out / STAMP
    try:
        return json.loads(stamp.read_text(encoding="utf-8")).get("source") == _source_digest()
    except (OSError, ValueError):
        return False


def build(out: Path = DEFAULT_OUT) -> Path:
    """Write the model directory (atomically replaced), unless it is already up to date."""
    if is_built(out):
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    tmp.chmod(0o755)
    tokens = load_tokens()
    files = {
        "o200k_base.tiktoken": tiktoken_file(tokens),
        "tokenizer.json": tokenizer_json(tokens),
        "tokenizer_config.json": json.dumps(tokenizer_config(), indent=1, ensure_ascii=False),
        "config.json": json.dumps(CONFIG, indent=1),
        "generation_config.json": json.dumps(GENERATION_CONFIG, indent=1),
        ".gitignore": "*\n",
        STAMP: json.dumps({"source": _source_digest()}),
    }
    for name, text in files.items():
        (tmp / name).write_text(text, encoding="utf-8")
    if out.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}-old-", dir=out.parent))
        os.replace(out, old / out.name)
        os.replace(tmp, out)
        for child in (old / out.name).iterdir():
            child.unlink()
        (old / out.name).rmdir()
        old.rmdir()
    else:
        os.replace(tmp, out)
    return out


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_OUT
    print(build(target))
