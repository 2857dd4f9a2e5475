"""vLLM's `GET /tokenizer_info` (`--enable-tokenizer-info-endpoint`): the tokenizer's configuration
as transformers holds it (`init_kwargs`, i.e. tokenizer_config.json as loaded), the class name
vLLM's wrappers give it, and the `--chat-template` when one is given.

tokenfront serves most tokenizers without transformers, so the transformers tokenizer is loaded
once, on the first request, the way vLLM loads it; only the answer is kept.
"""

from __future__ import annotations

import threading
from typing import Any

from tokenfront.tokenization.registry import ServedModel

# vLLM wraps a Hugging Face tokenizer twice (a cached-attributes class, then the template
# renderer's thread pool), renaming the class each time.
_HF_CLASS_PREFIX = "TokenizerPoolCached"
# The DeepSeek encoder modes' tokenizer classes.
_ENCODER_PREFIXES = {"deepseek_v32": "DSV32", "deepseek_v4": "DSV4", "deepseek_v41": "DSV41"}
# Paths of the loaded files, which vLLM leaves out.
_FILE_KEYS = ("vocab_file", "merges_file")

# id(model) -> (model, answer): the model is held so its id cannot be reused by another.
_answers: dict[int, tuple[ServedModel, dict[str, Any]]] = {}
_computing = threading.Lock()  # concurrent first requests load the tokenizer once


def tokenizer_info(model: ServedModel) -> dict[str, Any]:
    """The `/tokenizer_info` answer for `model` (computed once per served model)."""
    found = _answers.get(id(model))
    if found is None or found[0] is not model:
        with _computing:
            found = _answers.get(id(model))
            if found is None or found[0] is not model:
                found = _answers[id(model)] = (model, _tokenizer_info(model))
    return found[1]


def _tokenizer_info(model: ServedModel) -> dict[str, Any]:
    if model.options.tokenizer_mode == "mistral" or _is_mistral_common(model.tokenizer):
        info: dict[str, Any] = {"tokenizer_class": "MistralTokenizer"}
    else:
        tokenizer, class_name = _load_transformers_tokenizer(model)
        config = {k: v for k, v in tokenizer.init_kwargs.items() if k not in _FILE_KEYS}
        info = _json_ready(config)
        info["tokenizer_class"] = class_name
    if model.options.chat_template and model.chat_template:
        info["chat_template"] = model.chat_template
    return info


def _is_mistral_common(tokenizer: Any) -> bool:
    return type(tokenizer).__module__.startswith("tokenfront.tokenization.mistral")


def _load_transformers_tokenizer(model: ServedModel) -> tuple[Any, str]:
    """The tokenizer as vLLM loads it, and the class name vLLM's wrappers give it: the template
    renderer's thread pool over the cached class; the DeepSeek encoders' modes load
    `TokenizersBackend` directly under their own prefix; the Kimi K3 renderer keeps the cached
    class alone."""
    from tokenfront.render.encoders.deepseek import encoder_mode
    from tokenfront.render.kimi_k3 import uses_k3_renderer

    options = model.options
    source = str(model.tokenizer_path or model.path)
    kwargs: dict[str, Any] = {
        "truncation_side": "left",  # vLLM's, for generating models
        "trust_remote_code": options.trust_remote_code,
    }
    mode = encoder_mode(options.tokenizer_mode, options.model)
    if mode is not None:
        from transformers.tokenization_utils_tokenizers import TokenizersBackend

        tokenizer = TokenizersBackend.from_pretrained(source, download_dir=None, **kwargs)
        return tokenizer, f"Cached{_ENCODER_PREFIXES[mode]}{type(tokenizer).__name__}"
    from transformers import AutoTokenizer

    if options.tokenizer_mode == "slow":
        kwargs["use_fast"] = False
    tokenizer = AutoTokenizer.from_pretrained(source, mistral_format=False, **kwargs)
    prefix = "Cached" if uses_k3_renderer(model) else _HF_CLASS_PREFIX
    return tokenizer, prefix + type(tokenizer).__name__


def _json_ready(value: Any) -> Any:
    """Added tokens as their text, mapping keys as strings (as JSON writes them)."""
    if hasattr(value, "content"):
        return value.content
    if isinstance(value, dict):
        return {str(k): _json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_ready(v) for v in value]
    return value
