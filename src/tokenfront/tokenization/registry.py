"""The tokenizer registry: each served model is loaded once and shared by every endpoint."""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tokenfront.config import ModelOptions
from tokenfront.tokenization import context_length

logger = logging.getLogger(__name__)


class ModelNotFoundError(LookupError):
    """A request named a model this server does not serve."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


class ModelLoadError(RuntimeError):
    """A model directory could not be loaded at start-up."""


@dataclass
class ServedModel:
    """One loaded model: tokenizer, template and the settings derived from its config."""

    options: ModelOptions
    names: list[str]
    path: str
    tokenizer: Any
    hf_config: dict[str, Any]
    generation_config: dict[str, Any]
    chat_template: str | None
    max_model_len: int
    eos_token_id: int | None
    model_eos_token_ids: frozenset[int]
    vocab_size: int
    # Filled by the parser registry when a tool or reasoning parser is configured.
    parser: Any = None
    # `render.anthropic.MessagesFacts`, found on the first /v1/messages/render request.
    messages_facts: Any = None
    # The folder the tokenizer was read from (the model's unless --tokenizer / a revision says).
    tokenizer_path: str = ""

    @property
    def name(self) -> str:
        return self.names[0]

    @property
    def model_type(self) -> str:
        return str(self.hf_config.get("model_type", ""))


def _read_json(path: Path) -> dict[str, Any]:
    try:
        with path.open(encoding="utf-8") as f:
            data = json.load(f)
    except FileNotFoundError:
        return {}
    return data if isinstance(data, dict) else {}


def resolve_model_dir(
    model: str, revision: str | None = None, token: str | bool | None = None
) -> Path:
    """A local directory, or a hub id resolved through the Hugging Face cache (or the hub,
    with `token` as vLLM's --hf-token gives it: a token, or True for the stored one)."""
    path = Path(model).expanduser()
    if path.is_dir():
        return path
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(model, revision=revision, token=token))
    except Exception as exc:  # network off, unknown id, ...
        raise ModelLoadError(f"cannot find model {model!r}: not a directory and {exc}") from exc


# GenerationConfig fields transformers' `from_model_config` takes from a model config (the
# ones vLLM reads: stop ids and sampling defaults).
_GENERATION_FIELDS = (
    "eos_token_id", "bos_token_id", "pad_token_id", "decoder_start_token_id",
    "temperature", "top_k", "top_p", "min_p", "repetition_penalty",
    "max_length", "max_new_tokens", "do_sample",
)


def generation_config_from_model_config(hf_config: dict[str, Any]) -> dict[str, Any]:
    """The generation config vLLM derives when a model has no generation_config.json
    (`GenerationConfig.from_model_config`): generation fields of config.json, then those
    still unset from its text config."""
    out = {k: hf_config[k] for k in _GENERATION_FIELDS if hf_config.get(k) is not None}
    text_config = hf_config.get("text_config")
    if isinstance(text_config, dict):
        for key in _GENERATION_FIELDS:
            if key not in out and text_config.get(key) is not None:
                out[key] = text_config[key]
    return out


# What a model *is* is read from config.json in several places (parsers' id style, DeepSeek
# encoders, Harmony): an override of it would reach only some of them.
_IDENTITY_KEYS = ("architectures", "model_type")


def apply_hf_overrides(hf_config: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """`config.json` with `--hf-overrides` applied as vLLM applies them: a value replaces the
    key's, except that a mapping given for a sub-configuration (`text_config`, ...) updates it
    key by key, recursively. Overrides of architectures / model_type are refused."""
    config = dict(hf_config)
    for key, value in overrides.items():
        sub_config = isinstance(value, dict) and key.endswith("_config")
        if key in _IDENTITY_KEYS or (sub_config and any(k in _IDENTITY_KEYS for k in value)):
            raise ModelLoadError(
                f"--hf-overrides: architectures / model_type cannot be overridden (in {key!r}): "
                "tokenfront serves a model as its config.json names it"
            )
        current = config.get(key)
        config[key] = _updated(current, value) if sub_config and isinstance(current, dict) else value
    return config


def _updated(target: dict[str, Any], updates: dict[str, Any]) -> dict[str, Any]:
    merged = dict(target)
    for key, value in updates.items():
        current = merged.get(key)
        merged[key] = (
            _updated(current, value)
            if isinstance(value, dict) and isinstance(current, dict)
            else value
        )
    return merged


def _load_tokenizer(source: Path, options: ModelOptions) -> Any:
    kwargs: dict[str, Any] = {"trust_remote_code": options.trust_remote_code}
    if options.tokenizer_revision or options.revision:
        kwargs["revision"] = options.tokenizer_revision or options.revision
    mode = options.tokenizer_mode
    if mode == "auto":
        mode = "mistral" if any(source.glob("consolidated*.safetensors")) else "hf"
    if mode == "mistral":
        from tokenfront.tokenization.mistral import load_mistral_tokenizer

        return load_mistral_tokenizer(source, options.revision)
    if not env_flag("TOKENFRONT_TRANSFORMERS_TOKENIZER"):
        # The same tokenizer built on `tokenizers` directly, when the class is reproduced.
        from tokenfront.tokenization.fast_loader import load_fast_tokenizer

        fast = load_fast_tokenizer(source, trust_remote_code=options.trust_remote_code)
        if fast is not None:
            return fast
    from transformers import AutoTokenizer

    if (source / "tekken.json").exists() or any(source.glob("tokenizer.model.v*")):
        kwargs["mistral_format"] = False
    return AutoTokenizer.from_pretrained(str(source), **kwargs)


# Attributes transformers' model-specific tokenizer classes keep after building the Rust
# backend from Python copies of tokenizer.json's vocabulary and merges (~75 MB for 150k tokens).
_CONSTRUCTION_TABLES = ("_vocab", "_merges")


def release_construction_tables(tokenizer: Any) -> list[str]:
    """Drop the Python vocabulary/merges a tokenizer class only needed to build its backend.

    A table is dropped only when no method of the tokenizer's own classes (other than
    `__init__`) reads it, so nothing can need it later; returns the names dropped.
    """
    if not type(tokenizer).__module__.startswith("transformers."):
        return []
    readers: set[str] = set()
    for cls in type(tokenizer).__mro__:
        if cls.__module__.split(".")[0] != "transformers":
            continue
        for name, member in vars(cls).items():
            code = getattr(getattr(member, "__func__", member), "__code__", None)
            if name != "__init__" and code is not None:
                readers.update(code.co_names)
    dropped = []
    for name in _CONSTRUCTION_TABLES:
        table = vars(tokenizer).get(name)
        if isinstance(table, (dict, list)) and name not in readers:
            setattr(tokenizer, name, None)
            dropped.append(name)
    return dropped


def _load_chat_template(options: ModelOptions, tokenizer: Any, model_dir: Path) -> str | None:
    template = options.chat_template
    if template:
        candidate = Path(template).expanduser()
        if len(template) < 4096 and candidate.is_file():
            return candidate.read_text(encoding="utf-8")
        return template
    jinja_file = model_dir / "chat_template.jinja"
    if jinja_file.is_file():
        return jinja_file.read_text(encoding="utf-8")
    existing = getattr(tokenizer, "chat_template", None)
    if isinstance(existing, dict):
        return existing.get("default")
    return existing if isinstance(existing, str) else None


def load_model(options: ModelOptions) -> ServedModel:
    """Load one model directory (or the built-in default model when `options.model` is None)."""
    if options.model is None:
        from tokenfront.tokenization.builtin import builtin_model_dir

        options.model = str(builtin_model_dir())
        if not options.served_model_name:
            options.served_model_name = ["qwen3"]
    token = options.hf_token
    model_dir = resolve_model_dir(options.model, options.revision, token)
    tokenizer_revision = options.tokenizer_revision or options.revision  # vLLM's default
    tokenizer_dir = (
        resolve_model_dir(options.tokenizer or options.model, tokenizer_revision, token)
        if options.tokenizer or tokenizer_revision != options.revision
        else model_dir
    )
    config_dir = (
        resolve_model_dir(options.hf_config_path, options.revision, token)
        if options.hf_config_path
        else model_dir
    )
    hf_config = _read_json(config_dir / "config.json")

    if options.generation_config in ("auto", "vllm"):
        found = model_dir / "generation_config.json"
        generation_config = (
            _read_json(found) if found.is_file() else generation_config_from_model_config(hf_config)
        )
    else:
        generation_config = _read_json(Path(options.generation_config) / "generation_config.json")
    if options.hf_overrides:
        hf_config = apply_hf_overrides(hf_config, options.hf_overrides)

    try:
        tokenizer = _load_tokenizer(tokenizer_dir, options)
    except Exception as exc:
        raise ModelLoadError(f"cannot load tokenizer from {tokenizer_dir}: {exc}") from exc
    release_construction_tables(tokenizer)

    try:
        max_model_len = context_length.max_model_len(
            hf_config, options.max_model_len, disable_sliding_window=options.disable_sliding_window
        )
    except context_length.ContextLengthError as exc:
        raise ModelLoadError(str(exc)) from None

    eos_token_id = getattr(tokenizer, "eos_token_id", None)
    eos_ids: set[int] = set()
    config_eos = generation_config.get("eos_token_id")
    if isinstance(config_eos, int):
        eos_ids.add(config_eos)
    elif isinstance(config_eos, list):
        eos_ids.update(i for i in config_eos if isinstance(i, int))
    if eos_token_id is not None:
        eos_ids.add(eos_token_id)

    served = ServedModel(
        options=options,
        names=options.names,
        path=str(options.model),
        tokenizer=tokenizer,
        hf_config=hf_config,
        generation_config=generation_config,
        chat_template=_load_chat_template(options, tokenizer, model_dir),
        max_model_len=max_model_len,
        eos_token_id=eos_token_id,
        model_eos_token_ids=frozenset(eos_ids),
        vocab_size=len(tokenizer),
        tokenizer_path=str(tokenizer_dir),
    )
    served.parser = build_parsers(options, tokenizer, served.model_type, served.name)
    logger.info(
        "loaded model %s from %s (max_model_len=%d, vocab=%d)",
        served.name,
        model_dir,
        max_model_len,
        served.vocab_size,
    )
    return served


def build_parsers(options: ModelOptions, tokenizer: Any, model_type: str, name: str) -> Any:
    """A served model's output parsers (Harmony reading on gpt-oss; None when none is set),
    built against its tokenizer. ModelLoadError where vLLM refuses to start with them."""
    from tokenfront.parsers.harmony_output import default_reasoning_parser, harmony_parser_for
    from tokenfront.parsers.pipeline import ParserTokenizerError, build_output_parser

    options.reasoning_parser = default_reasoning_parser(options, model_type)
    try:
        return harmony_parser_for(options, tokenizer, model_type) or build_output_parser(options, tokenizer)
    except ParserTokenizerError as exc:  # e.g. markers the tokenizer lacks: vLLM's own text
        raise ModelLoadError(str(exc)) from exc
    except (LookupError, ValueError) as exc:  # e.g. parsers that cannot be combined
        raise ModelLoadError(f"cannot set up the output parsers of {name}: {exc}") from exc


class ModelRegistry:
    """All served models, looked up by any of their served names."""

    def __init__(self, models: list[ServedModel]) -> None:
        if not models:
            raise ValueError("at least one model must be served")
        self.models = models
        self._by_name: dict[str, ServedModel] = {}
        for model in models:
            for name in model.names:
                self._by_name.setdefault(name, model)

    @classmethod
    def load(cls, options: list[ModelOptions]) -> ModelRegistry:
        return cls([load_model(opt) for opt in options])

    @property
    def default(self) -> ServedModel:
        return self.models[0]

    def get(self, name: str | None) -> ServedModel:
        """The model a request names; the first served model when it names none."""
        if name is None:
            return self.default
        model = self._by_name.get(name)
        if model is None:
            raise ModelNotFoundError(name)
        return model

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.models)


def env_flag(name: str) -> bool:
    return os.environ.get(name, "").lower() in ("1", "true", "yes", "on")
