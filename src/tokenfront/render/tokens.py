"""Prompt tokenization with vLLM's truncation and context-length checks (`TokenizeParams`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tokenfront.identity_cache import IdentityCache
from tokenfront.protocol.requests import RequestValidationFailure
from tokenfront.tokenization.detokenizer import tokenizer_view
from tokenfront.tokenization.registry import ServedModel
from tokenfront.tokenization.vocab import vocab_of

_facts_cache: IdentityCache[tuple[int, int]] = IdentityCache()


def tokenizer_facts(model: ServedModel) -> tuple[int, int]:
    """(max_token_id, max_chars_per_token) as vLLM's cached tokenizer reports them."""
    cached = _facts_cache.get(model)
    if cached is not None:
        return cached
    tokenizer = model.tokenizer
    vocab = vocab_of(tokenizer)
    max_id = max(vocab.values())
    try:
        max_id = max(max_id, int(tokenizer.vocab_size) - 1)
    except (NotImplementedError, AttributeError, TypeError):
        pass
    max_chars = max(len(tok) for tok in vocab)
    return _facts_cache.put(model, (max_id, max_chars))


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
    want_offsets = want_offsets and bool(getattr(tokenizer, "is_fast", False))
    ids, offs = _encode(tokenizer, text, params.add_special_tokens, want_offsets)
    # vLLM lets the tokenizer truncate (left side) to the kept length, or to one token
    # past the context when nothing is kept; an explicit side is sliced afterwards.
    if params.truncation_side is not None and params.truncate_prompt_tokens is not None:
        limit = None
    else:
        limit = params._keep()
        if limit is None:
            limit = max_input + 1
    if limit is not None and len(ids) > limit:
        ids, offs = _truncate_like_tokenizer(
            tokenizer, text, ids, offs, params.add_special_tokens, limit, want_offsets
        )
    offsets: list[list[int]] | None = None
    if offs is not None:
        offsets = [
            [a, b] if (a, b) == (0, 0) or char_offset == 0 else [a + char_offset, b + char_offset]
            for a, b in offs
        ]
        offsets = _truncate(offsets, params)
    return check_token_ids(model, ids, params), offsets


def _encode(
    tokenizer: Any, text: str, add_special_tokens: bool, want_offsets: bool
) -> tuple[list[int], list[tuple[int, int]] | None]:
    # Never enable the tokenizer's own truncation: it is state shared by all threads.
    backend = _plain_backend(tokenizer)
    if backend is not None:
        if not want_offsets:
            encoder = tokenizer_view(tokenizer).prompt_encoder
            if encoder is not None:
                return encoder.encode(text, add_special_tokens), None
        enc = backend.encode(text, add_special_tokens=add_special_tokens)
        return enc.ids, enc.offsets if want_offsets else None
    if want_offsets:
        enc = tokenizer(text, add_special_tokens=add_special_tokens, return_offsets_mapping=True)
        return list(enc["input_ids"]), [(int(a), int(b)) for a, b in enc["offset_mapping"]]
    return list(tokenizer(text, add_special_tokens=add_special_tokens)["input_ids"]), None


def _plain_backend(tokenizer: Any) -> Any:
    """The `tokenizers.Tokenizer` when calling it directly gives what `tokenizer(text)` gives
    (transformers' generic fast tokenizer, no truncation or padding configured); else None."""
    backend = tokenizer_view(tokenizer).plain_backend
    if backend is None:
        return None
    if backend.truncation is not None or backend.padding is not None:
        return None
    if backend.encode_special_tokens != bool(getattr(tokenizer, "split_special_tokens", False)):
        return None
    return backend


def _truncate_like_tokenizer(
    tokenizer: Any,
    text: str,
    ids: list[int],
    offs: list[tuple[int, int]] | None,
    add_special_tokens: bool,
    limit: int,
    want_offsets: bool,
) -> tuple[list[int], list[tuple[int, int]] | None]:
    """HF left truncation to `limit` tokens: special tokens stay, content is cut."""
    if not add_special_tokens:
        return ids[-limit:] if limit > 0 else [], (
            offs[-limit:] if limit > 0 else []
        ) if offs is not None else None
    content, content_offs = _encode(tokenizer, text, False, want_offsets)
    added = len(ids) - len(content)
    start = next((p for p in range(added + 1) if ids[p : p + len(content)] == content), None)
    if start is None or added < 0:
        return ids[-limit:], offs[-limit:] if offs is not None else None
    room = max(0, limit - added)
    kept = content[len(content) - room :] if room else []
    new_ids = ids[:start] + kept + ids[start + len(content) :]
    new_offs = None
    if offs is not None:
        kept_offs = offs[start + len(content) - room : start + len(content)] if room else []
        new_offs = offs[:start] + kept_offs + offs[start + len(content) :]
    return new_ids, new_offs


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
