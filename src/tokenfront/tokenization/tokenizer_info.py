"""vLLM's `GET /tokenizer_info` (`--enable-tokenizer-info-endpoint`): the tokenizer's configuration
as transformers holds it (`init_kwargs`, i.e. tokenizer_config.json as loaded), the class name
vLLM's wrappers give it, and the `--chat-template` when one is given.

tokenfront serves most tokenizers without transformers, so the transformers tokenizer is loaded
once, on the first request, the way vLLM loads it; only the answer is kept.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from tokenfront.tokenization.registry import ServedModel

# vLLM wraps a Hugging Face tokenizer twice (a cached-attributes class, then a thread pool one),
# renaming the class each time.
_HF_CLASS_PREFIX = "TokenizerPoolCached"
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
        tokenizer = _load_transformers_tokenizer(model)
        config = {k: v for k, v in tokenizer.init_kwargs.items() if k not in _FILE_KEYS}
        info = _json_ready(config)
        info["tokenizer_class"] = _HF_CLASS_PREFIX + type(tokenizer).__name__
    if model.options.chat_template and model.chat_template:
        info["chat_template"] = model.chat_template
    return info


def _is_mistral_common(tokenizer: Any) -> bool:
    return type(tokenizer).__module__.startswith("tokenfront.tokenization.mistral")


def _load_transformers_tokenizer(model: ServedModel) -> Any:
    from transformers import AutoTokenizer

    options = model.options
    source = Path(model.tokenizer_path or model.path)
    kwargs: dict[str, Any] = {
        "truncation_side": "left",  # vLLM's, for generating models
        "trust_remote_code": options.trust_remote_code,
        "mistral_format": False,
    }
    if options.tokenizer_mode == "slow":
        kwargs["use_fast"] = False
    return AutoTokenizer.from_pretrained(str(source), **kwargs)


def _json_ready(value: Any) -> Any:
    """Added tokens as their text, mapping keys as strings (as JSON writes them)."""
    if hasattr(value, "content"):
        return value.content
    if isinstance(value, dict):
        return {str(k): _json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_ready(v) for v in value]
    return value
