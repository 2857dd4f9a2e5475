"""Prompt tokenization with vLLM's truncation and context-length checks (`TokenizeParams`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tokenfront.protocol.requests import RequestValidationFailure
from tokenfront.tokenization.registry import ServedModel

_facts_cache: dict[int, tuple[int, int]] = {}


def tokenizer_facts(model: ServedModel) -> tuple[int, int]:
    """(max_token_id, max_chars_per_token) as vLLM's cached tokenizer reports them."""
    cached = _facts_cache.get(id(model))
    if cached is not None:
        return cached
    tokenizer = model.tokenizer
    # vLLM loads generation tokenizers with left truncation.
    tokenizer.truncation_side = "left"
    vocab = tokenizer.get_vocab()
    max_id = max(vocab.values())
    try:
        max_id = max(max_id, int(tokenizer.vocab_size) - 1)
    except (NotImplementedError, AttributeError, TypeError):
        pass
    max_chars = max(len(tok) for tok in vocab)
    _facts_cache[id(model)] = (max_id, max_chars)
    return max_id, max_chars


@dataclass(frozen=True)
class TokenizeParams:
    max_total_tokens: int
    max_output_tokens: int | None
    truncate_prompt_tokens: int | None
    truncation_side: str | None
    add_special_tokens: bool
    max_output_tokens_param: str = "max_tokens"

    def validate(self) -> None:
        """The checks vLLM runs when building the params (before any rendering)."""
        if self.max_output_tokens is not None and self.max_output_tokens > self.max_total_tokens:
            raise RequestValidationFailure(
                f"{self.max_output_tokens_param}={self.max_output_tokens} cannot be greater "
                f"than max_model_len={self.max_total_tokens}. Please request fewer output tokens.",
                parameter=self.max_output_tokens_param,
                value=self.max_output_tokens,
            )
        if (
            self.truncate_prompt_tokens is not None
            and self.truncate_prompt_tokens > self.max_total_tokens
        ):
            raise RequestValidationFailure(
                f"truncate_prompt_tokens={self.truncate_prompt_tokens} cannot be greater than "
                f"max_model_len = {self.max_total_tokens}. "
                "Please request a smaller truncation size.",
                parameter="truncate_prompt_tokens",
                value=self.truncate_prompt_tokens,
            )

    @property
    def max_truncation_tokens(self) -> int:
        if self.max_output_tokens == 0:
            return self.max_total_tokens
        return max(0, self.max_total_tokens - 1)

    def _keep(self) -> int | None:
        n = self.truncate_prompt_tokens
        if n is not None and n < 0:
            return self.max_truncation_tokens
        return n


def encode_text(model: ServedModel, text: str, params: TokenizeParams) -> list[int]:
    """Tokenize prompt text, then truncate and length-check the ids."""
    return encode_text_with_offsets(model, text, params, want_offsets=False)[0]


def encode_text_with_offsets(
    model: ServedModel, text: str, params: TokenizeParams, *, want_offsets: bool
) -> tuple[list[int], list[list[int]] | None]:
    """Like `encode_text`, plus per-token character offsets for fast tokenizers."""
    max_input = params.max_total_tokens
    _, max_chars_per_token = tokenizer_facts(model)
    max_chars = max_input * max_chars_per_token
    if params.truncate_prompt_tokens is None:
        if len(text) > max_chars:
            raise RequestValidationFailure(
                f"This model's maximum context length is {params.max_total_tokens} tokens. "
                f"However, your prompt contains {len(text)} characters (more than "
                f"{max_chars} characters, which is the upper bound for {max_input} input "
                "tokens). Please reduce the length of the input prompt.",
                parameter="input_text",
                value=len(text),
            )
    char_offset = 0
    if params.truncate_prompt_tokens is not None and params.truncation_side is not None:
        if len(text) > max_chars:
            if params.truncation_side == "left":
                char_offset = len(text) - max_chars
                text = text[-max_chars:]
            else:
                text = text[:max_chars]

    tokenizer = model.tokenizer
    tokenizer_facts(model)
    kwargs: dict[str, Any] = {"add_special_tokens": params.add_special_tokens}
    if params.truncation_side is not None and params.truncate_prompt_tokens is not None:
        kwargs["truncation"] = False
    else:
        max_length = params._keep()
        if max_length is None:
            max_length = max_input + 1
        kwargs["truncation"] = True
        kwargs["max_length"] = max_length
    want_offsets = want_offsets and bool(getattr(tokenizer, "is_fast", False))
    if want_offsets:
        kwargs["return_offsets_mapping"] = True
    encoding = tokenizer(text, **kwargs)
    ids = list(encoding["input_ids"])
    offsets: list[list[int]] | None = None
    if want_offsets:
        offsets = [
            [int(a), int(b)] if (a, b) == (0, 0) or char_offset == 0
            else [int(a) + char_offset, int(b) + char_offset]
            for a, b in encoding["offset_mapping"]
        ]
        offsets = _truncate(offsets, params)
    return check_token_ids(model, ids, params), offsets


def _truncate(items: list[Any], params: TokenizeParams) -> list[Any]:
    keep = params._keep()
    if keep is None or keep >= len(items):
        return items
    if keep == 0:
        return []
    return items[-keep:] if (params.truncation_side or "left") == "left" else items[:keep]


def check_token_ids(model: ServedModel, ids: list[int], params: TokenizeParams) -> list[int]:
    """Truncation then the context-length check (vLLM's post-tokenization step)."""
    keep = params._keep()
    if keep is not None and keep < len(ids):
        if keep == 0:
            ids = []
        else:
            side = params.truncation_side or "left"
            ids = ids[-keep:] if side == "left" else ids[:keep]
    if len(ids) > params.max_total_tokens:
        count = len(ids)
        qualifier = "at least " if count == params.max_total_tokens + 1 else ""
        raise RequestValidationFailure(
            f"This model's maximum context length is {params.max_total_tokens} tokens. "
            f"However, your prompt contains {qualifier}{count} input tokens, which exceeds "
            "this limit even without any output tokens. Please reduce the length of the "
            "input prompt.",
            parameter="input_tokens",
            value=count,
        )
    return ids
