"""Load a model directory's tokenizer on `tokenizers` directly, as transformers 5.20.2 builds it.

`AutoTokenizer.from_pretrained` costs ~1.3 s to import transformers plus ~1 s to build the
backend (for `Qwen2Tokenizer` it parses tokenizer.json in Python and rebuilds the BPE from
Python copies of the vocabulary and merges). For the two classes every served model here
uses, `Qwen2Tokenizer` and the generic `PreTrainedTokenizerFast` (`TokenizersBackend`), this
module reproduces what `from_pretrained` does from the same files: which class AutoTokenizer
picks, the init kwargs read from tokenizer_config.json / special_tokens_map.json / chat
templates, the backend overrides the class applies, and the added and special tokens
its `__init__` registers. Anything outside that (remote code, other classes, unusual files,
truncation or padding baked into tokenizer.json, ...) answers None and the caller uses
transformers.
"""

from __future__ import annotations

import codecs
import copy
import fnmatch
import json
from pathlib import Path
from typing import Any

from tokenfront.tokenization.fast_tokenizer import (
    SPECIAL_TOKENS_ATTRIBUTES,
    FastTokenizer,
)

# transformers 5.20.2's `TOKENIZER_MAPPING_NAMES` entries for the model types the fast path
# accepts (None: no registered class), and which of them are in
# `MODELS_WITH_INCORRECT_HUB_TOKENIZER_CLASS`; tests/tokenization/test_fast_loader.py checks
# both against transformers. Model types not listed here go through transformers.
REGISTERED_TOKENIZER_CLASS: dict[str, str | None] = {
    "qwen2": "Qwen2Tokenizer",
    "qwen2_moe": "Qwen2Tokenizer",
    "qwen3": "Qwen2Tokenizer",
    "qwen3_moe": "Qwen2Tokenizer",
    "llama": None,
    "mistral": "MistralCommonBackend",
    "deepseek_v3": "TokenizersBackend",
    "cohere2": "CohereTokenizer",
    "gpt_oss": None,
    "kimi_k3": None,
    "deepseek_v41": None,
}
INCORRECT_HUB_CLASS_MODEL_TYPES = frozenset({"qwen2", "deepseek_v3"})
# transformers' `MODEL_IDS_TO_TOKENIZERS_BACKEND` (matched against the lowercased path).
_MODEL_IDS_TO_TOKENIZERS_BACKEND = (
    "deepseek-ai/deepseek-r1-distill-llama-*",
    "deepseek-ai/deepseek-coder-*",
    "allenai/dolma2-tokenizer",
    "google/umt5-small",
    "naver-clova-ix/donut-*",
    "salesforce/blip2-opt-*",
    "salesforce/blip2-flan-t5-*",
    "salesforce/instructblip-flan-t5-*",
    "stepfun-ai/step-3.7-*",
)
# Hub classes reproduced here -> the transformers class AutoTokenizer instantiates for them.
_HUB_CLASSES = {"Qwen2Tokenizer": "Qwen2Tokenizer", "PreTrainedTokenizerFast": "TokenizersBackend"}
_BACKEND_FALLBACKS = ("TokenizersBackend", "PythonBackend", "PreTrainedTokenizerFast")
# tokenizer_config.json keys whose handling is not reproduced.
_UNSUPPORTED_CONFIG_KEYS = ("auto_map", "fast_tokenizer_files", "fix_mistral_regex", "init_inputs")
_CHAT_TEMPLATE_DIR = "additional_chat_templates"
# Qwen2Tokenizer's pre-tokenizer split (transformers/models/qwen2/tokenization_qwen2.py).
QWEN2_PRETOKENIZE_REGEX = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|"""
    r"""\s*[\r\n]+|\s+(?!\S)|\s+"""
)


def _read_json(path: Path) -> Any:
    with path.open(encoding="utf-8") as f:
        return json.load(f)


def resolve_class(source: Path, tokenizer_config: dict[str, Any]) -> str | None:
    """The transformers class AutoTokenizer picks for this directory, if the fast path covers it."""
    hub_class = tokenizer_config.get("tokenizer_class")
    if hub_class not in _HUB_CLASSES or "auto_map" in tokenizer_config:
        return None
    config_file = source / "config.json"
    if not config_file.is_file():
        return None
    config = _read_json(config_file)
    if not isinstance(config, dict):
        return None
    model_type = config.get("model_type")
    if model_type not in REGISTERED_TOKENIZER_CLASS or "auto_map" in config:
        return None
    name = str(source).lower()
    if any(fnmatch.fnmatch(name, pattern) for pattern in _MODEL_IDS_TO_TOKENIZERS_BACKEND):
        return None
    registered = REGISTERED_TOKENIZER_CLASS[model_type]
    if registered is not None and registered.removesuffix("Fast") != hub_class.removesuffix("Fast"):
        if registered not in (*_BACKEND_FALLBACKS, "MistralCommonBackend"):
            chosen = registered if model_type in INCORRECT_HUB_CLASS_MODEL_TYPES else hub_class
            if chosen not in _HUB_CLASSES:
                return None
            return _HUB_CLASSES[chosen]
        if registered == "MistralCommonBackend" and not _mistral_format_off(source):
            return None
        return "TokenizersBackend"
    return _HUB_CLASSES[hub_class]


def _mistral_format_off(source: Path) -> bool:
    """AutoTokenizer will not switch to MistralCommonBackend: the registry passes
    `mistral_format=False` when tekken.json exists, and without it auto-detection finds nothing."""
    return not any(source.glob("tokenizer.model.v*")) or (source / "tekken.json").exists()


def _init_kwargs(source: Path, tokenizer_config: dict[str, Any], cls_name: str) -> dict[str, Any] | None:
    """`PreTrainedTokenizerBase._from_pretrained`'s init kwargs for a local directory."""
    from tokenizers import AddedToken

    init_kwargs = copy.deepcopy(tokenizer_config)
    init_kwargs.pop("tokenizer_class", None)
    # tokenizer.json is present: its post-processor decides bos/eos.
    init_kwargs.pop("add_bos_token", None)
    init_kwargs.pop("add_eos_token", None)

    templates: dict[str, str] = {}
    default_file = source / "chat_template.jinja"
    if default_file.is_file():
        templates["default"] = default_file.read_text(encoding="utf-8")
    template_dir = source / _CHAT_TEMPLATE_DIR
    if template_dir.is_dir():
        for path in template_dir.glob("*.jinja"):
            templates[path.name.removesuffix(".jinja")] = path.read_text(encoding="utf-8")
    if len(templates) == 1 and "default" in templates:
        init_kwargs["chat_template"] = templates["default"]
    elif templates:
        init_kwargs["chat_template"] = templates

    if "additional_special_tokens" in init_kwargs and not init_kwargs.get("extra_special_tokens"):
        init_kwargs["extra_special_tokens"] = init_kwargs.pop("additional_special_tokens")
    model_specific = {
        key: init_kwargs.pop(key)
        for key in list(init_kwargs)
        if key not in SPECIAL_TOKENS_ATTRIBUTES
        and key.endswith("_token")
        and isinstance(init_kwargs[key], (str, AddedToken))
    }
    if isinstance(init_kwargs.get("extra_special_tokens"), dict):
        model_specific.update(init_kwargs.pop("extra_special_tokens"))
    if model_specific:
        init_kwargs["model_specific_special_tokens"] = model_specific

    if cls_name == "Qwen2Tokenizer":
        for key, filename in (("vocab_file", "vocab.json"), ("merges_file", "merges.txt")):
            if (source / filename).is_file():
                init_kwargs[key] = str(source / filename)
    elif (source / "tokenizer.model").is_file():
        init_kwargs["vocab_file"] = str(source / "tokenizer.model")
    init_kwargs["tokenizer_file"] = str(source / "tokenizer.json")
    init_kwargs["name_or_path"] = str(source)
    init_kwargs["is_local"] = True
    init_kwargs["local_files_only"] = False
    return init_kwargs


def _split_added_tokens(data: bytes) -> tuple[list[dict[str, Any]], bytes] | None:
    """tokenizer.json's `added_tokens` list, and the file's bytes with that list emptied.

    Only the top-level keys before `model` are decoded, one by one (they are small), from as
    much of the head of the file as they need, so neither the vocabulary and merges nor the
    rest of the file is ever decoded or parsed in Python: the Rust parser gets the bytes.
    None when the layout is unexpected.
    """
    limit = 1 << 16
    while True:
        head = codecs.getincrementaldecoder("utf-8")().decode(data[:limit], final=limit >= len(data))
        try:
            found = _split_head(head)
        except (ValueError, IndexError):
            found = None
        if found is not None or limit >= len(data):
            break
        limit *= 4
    if found is None:
        return None
    value, start, end = found
    # str offsets in `head` -> byte offsets in `data`
    byte_start = len(head[:start].encode("utf-8"))
    byte_end = byte_start + len(head[start:end].encode("utf-8"))
    return value, data[:byte_start] + b"[]" + data[byte_end:]


def _split_head(text: str) -> tuple[list[dict[str, Any]], int, int] | None:
    """The `added_tokens` value of a tokenizer.json's head and its span; None when the layout
    is unexpected; ValueError / IndexError when `text` ends before the value does."""
    decoder = json.JSONDecoder()
    pos = _skip_ws(text, 0)
    if text[pos : pos + 1] != "{":
        return None
    pos += 1
    while True:
        pos = _skip_ws(text, pos)
        if text[pos] != '"':
            return None
        key, pos = decoder.raw_decode(text, pos)
        pos = _skip_ws(text, pos)
        if text[pos] != ":":
            return None
        pos = _skip_ws(text, pos + 1)
        if key == "model":
            return None
        value, end = decoder.raw_decode(text, pos)
        if key == "added_tokens":
            if not isinstance(value, list):
                return None
            return value, pos, end
        pos = _skip_ws(text, end)
        if text[pos] != ",":
            return None
        pos += 1


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _added_tokens_from_config(
    init_kwargs: dict[str, Any],
    source: Path,
    backend: Any,
    file_added: list[dict[str, Any]] | None,
) -> tuple[dict[int, Any], dict[str, Any]] | None:
    """`added_tokens_decoder` and the content -> token map `_from_pretrained` builds."""
    from tokenizers import AddedToken

    decoder: dict[int, Any] = {}
    by_content: dict[str, Any] = {}
    if "added_tokens_decoder" in init_kwargs:
        for idx, token in init_kwargs["added_tokens_decoder"].items():
            if isinstance(token, dict):
                token = AddedToken(**token)
            if not isinstance(token, AddedToken):
                return None
            decoder[int(idx)] = token
            by_content[str(token)] = token
        return decoder, by_content
    special_map_file = source / "special_tokens_map.json"
    if special_map_file.is_file():
        special_map = _read_json(special_map_file)
        for key, value in special_map.items():
            if isinstance(value, dict) and key != "extra_special_tokens":
                value = dict(value)
                value.pop("special", None)
                value = AddedToken(**value, special=True)
            elif key == "extra_special_tokens" and isinstance(value, list):
                existing = list(init_kwargs.get("extra_special_tokens") or [])
                for tok in value:
                    tok = AddedToken(**tok, special=True) if isinstance(tok, dict) else tok
                    if tok not in existing:
                        existing.append(tok)
                value = existing
            init_kwargs[key] = value
        if isinstance(init_kwargs.get("extra_special_tokens"), dict):
            init_kwargs.setdefault("model_specific_special_tokens", {}).update(
                init_kwargs.pop("extra_special_tokens")
            )
    # tokenizer.json's own added tokens.
    if file_added is None:
        # The backend loaded them from the same file.
        for idx, token in sorted(backend.get_added_tokens_decoder().items()):
            decoder[idx] = token
            by_content[str(token)] = token
        return decoder, by_content
    for serialized in file_added:
        serialized = dict(serialized)
        idx = serialized.pop("id")
        decoder[idx] = AddedToken(**serialized)
        by_content[str(decoder[idx])] = decoder[idx]
    return decoder, by_content


def _convert_added_tokens(obj: Any) -> Any:
    """`PreTrainedTokenizerBase.convert_added_tokens(obj, save=False)`."""
    from tokenizers import AddedToken

    if isinstance(obj, dict) and obj.get("__type") == "AddedToken":
        obj = dict(obj)
        obj.pop("__type")
        return AddedToken(**obj)
    if isinstance(obj, (list, tuple)):
        return [_convert_added_tokens(o) for o in obj]
    if isinstance(obj, dict):
        return {k: _convert_added_tokens(v) for k, v in obj.items()}
    return obj


def _apply_qwen2_overrides(backend: Any, add_prefix_space: bool) -> None:
    """What `Qwen2Tokenizer.__init__` builds around the BPE of tokenizer.json."""
    from tokenizers import Regex, decoders, normalizers, pre_tokenizers

    model = backend.model
    model.dropout = None
    model.unk_token = None
    model.continuing_subword_prefix = ""
    model.end_of_word_suffix = ""
    model.fuse_unk = False
    model.byte_fallback = False
    model.ignore_merges = False
    backend.decoder = decoders.ByteLevel()
    backend.normalizer = normalizers.NFC()
    backend.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(QWEN2_PRETOKENIZE_REGEX), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space, use_regex=False),
        ]
    )


def load_fast_tokenizer(source: Path, *, trust_remote_code: bool = False) -> FastTokenizer | None:
    """The tokenizer of `source` without transformers, or None when the fast path does not apply."""
    from tokenizers import AddedToken, Tokenizer

    if trust_remote_code:
        return None
    config_file = source / "tokenizer_config.json"
    tokenizer_file = source / "tokenizer.json"
    if not config_file.is_file() or not tokenizer_file.is_file():
        return None
    if (source / "added_tokens.json").exists():
        return None
    tokenizer_config = _read_json(config_file)
    if not isinstance(tokenizer_config, dict):
        return None
    if any(key in tokenizer_config for key in _UNSUPPORTED_CONFIG_KEYS):
        return None
    cls_name = resolve_class(source, tokenizer_config)
    if cls_name is None:
        return None
    init_kwargs = _init_kwargs(source, tokenizer_config, cls_name)
    if init_kwargs is None:
        return None

    if cls_name == "Qwen2Tokenizer":
        # Qwen2Tokenizer rebuilds the backend from tokenizer.json's BPE without its added
        # tokens, then adds the configured ones: load the file without them.
        split = _split_added_tokens(tokenizer_file.read_bytes())
        if split is None:
            return None
        file_added, data = split
        backend = Tokenizer.from_buffer(data)
        del data
        if type(backend.model).__name__ != "BPE":
            return None
    else:
        backend = Tokenizer.from_file(str(tokenizer_file))
        file_added = None
    if backend.truncation is not None or backend.padding is not None:
        return None
    found = _added_tokens_from_config(init_kwargs, source, backend, file_added)
    if found is None:
        return None
    added_decoder, added_by_content = found

    init_kwargs["added_tokens_decoder"] = added_decoder
    init_kwargs = _convert_added_tokens(init_kwargs)
    for key in SPECIAL_TOKENS_ATTRIBUTES:
        if key in init_kwargs and added_by_content and init_kwargs[key] is not None:
            init_kwargs[key] = added_by_content.get(str(init_kwargs[key]), init_kwargs[key])

    if cls_name == "Qwen2Tokenizer":
        add_prefix_space = init_kwargs.get("add_prefix_space")
        add_prefix_space = add_prefix_space if add_prefix_space is not None else False
        _apply_qwen2_overrides(backend, bool(add_prefix_space))
        for key, default in (
            ("unk_token", "<|endoftext|>"),
            ("eos_token", "<|endoftext|>"),
            ("pad_token", "<|endoftext|>"),
        ):
            init_kwargs.setdefault(key, default)
        init_kwargs.setdefault("bos_token", None)
        init_kwargs["add_prefix_space"] = init_kwargs.get("add_prefix_space")
    # (`_patch_mistral_regex` only changes the backend with `fix_mistral_regex=True`, which
    # tokenizer_config.json cannot carry here.)
    tokenizer = FastTokenizer(backend, init_kwargs, cls_name)
    if cls_name == "Qwen2Tokenizer":
        tokenizer.add_tokens([AddedToken(t, special=True) for t in tokenizer.all_special_tokens])
    return tokenizer

