"""Turning generate's integer-id logprobs into the OpenAI chat and completions shapes."""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

from tokenfront.protocol.generate import GenerateLogProbs
from tokenfront.tokenization.detokenizer import REPLACEMENT_CHAR, TokenizerView

# How many preceding sampled ids the byte-fallback correction may read.
CONTEXT_WINDOW = 4

LogprobEntry = dict[str, Any]


def chat_top_limit(chat_request: Any | None) -> int | None:
    """How many candidates per position `/v1/chat/completions` keeps (None = all)."""
    if chat_request is None or not chat_request.logprobs:
        return None
    if chat_request.logprob_token_ids or chat_request.top_logprobs == -1:
        return None
    return chat_request.top_logprobs or 0


def completion_top_limit(completion_request: Any | None) -> int | None:
    """How many candidates per position `/v1/completions` keeps: `logprobs + 1` (None = all)."""
    if completion_request is None:
        return None
    logprobs = completion_request.logprobs
    if completion_request.logprob_token_ids or logprobs is None or logprobs == -1:
        return None
    return max(logprobs + 1, 0)


def context_tail(context: Sequence[int], delta: Sequence[int]) -> list[int]:
    """The carried correction context advanced by one chunk's sampled ids."""
    return [*context, *delta][-CONTEXT_WINDOW:]


def correct_token(view: TokenizerView, token_id: int, context: Sequence[int]) -> str:
    """Repair a U+FFFD piece using up to four preceding ids as context ("" if hopeless)."""
    usable = min(len(context), CONTEXT_WINDOW)
    for n in range(1, usable + 1):
        ctx = list(context[-n:])
        full = view.decode([*ctx, token_id])
        if full.endswith(REPLACEMENT_CHAR):
            continue
        clean_end = len(ctx)
        for j in range(len(ctx) - 1, -1, -1):
            if view.decode([ctx[j]]).endswith(REPLACEMENT_CHAR):
                clean_end = j
            else:
                break
        clean_prefix = view.decode(ctx[:clean_end]) if clean_end > 0 else ""
        if full.startswith(clean_prefix):
            return full[len(clean_prefix) :]
        common = 0
        for a, b in zip(clean_prefix, full, strict=False):
            if a != b:
                break
            common += 1
        return full[common:]
    return ""


def _utf8(text: str) -> list[int]:
    return list(text.encode("utf-8", errors="replace"))


def resolve_logprobs(
    view: TokenizerView,
    logprobs: GenerateLogProbs,
    top_limit: int | None,
    initial_context: Sequence[int] = (),
) -> dict[str, Any]:
    """The chat `logprobs` object: token strings and bytes for each position and candidate."""
    positions = logprobs.content
    if positions is None:
        return {"content": None}
    clean = _clean_pairs(view)
    get = clean.get
    # The correction context of position i is the sampled ids before it (with the carried ones).
    sampled = [*initial_context, *(entry["token_id"] for entry in positions)]
    offset = len(initial_context)
    content: list[LogprobEntry] = []
    append = content.append
    for i, entry in enumerate(positions):
        token_id = entry["token_id"]
        pair = get(token_id) or _resolve_slow(view, clean, token_id, sampled, offset + i)
        tops: Sequence[Any] = entry.get("top_logprobs") or ()
        if top_limit is not None:
            tops = tops[:top_limit]
        append(
            {
                "token": pair[0],
                "logprob": entry["logprob"],
                "bytes": pair[1],
                "top_logprobs": [
                    {
                        "token": (
                            top := get(cand["token_id"])
                            or _resolve_slow(view, clean, cand["token_id"], sampled, offset + i)
                        )[0],
                        "logprob": cand["logprob"],
                        "bytes": top[1],
                    }
                    for cand in tops
                ],
            }
        )
    return {"content": content}


# Per tokenizer view: id -> (string, bytes) for ids whose string decoded alone does not end in
# U+FFFD, so it needs no context (nearly every id). The tuples are the view's own cache entries.
_CLEAN_PAIRS: weakref.WeakKeyDictionary[TokenizerView, dict[int, tuple[str, list[int]]]] = (
    weakref.WeakKeyDictionary()
)


def _clean_pairs(view: TokenizerView) -> dict[int, tuple[str, list[int]]]:
    pairs = _CLEAN_PAIRS.get(view)
    if pairs is None:
        pairs = _CLEAN_PAIRS[view] = {}
    return pairs


def _resolve_slow(
    view: TokenizerView,
    clean: dict[int, tuple[str, list[int]]],
    token_id: int,
    sampled: Sequence[int],
    position: int,
) -> tuple[str, list[int] | None]:
    """A candidate not in `clean`: decoded (and remembered when context-free), or repaired
    from the up to `CONTEXT_WINDOW` sampled ids before `position`."""
    decoded = view.token_string(token_id)
    if decoded is None:
        return "", None
    if not decoded[0].endswith(REPLACEMENT_CHAR):
        if 0 <= token_id < view.length:
            clean[token_id] = decoded
        return decoded
    text = correct_token(view, token_id, sampled[max(0, position - CONTEXT_WINDOW) : position])
    return text, _utf8(text)


def to_completion_logprobs(
    resolved: dict[str, Any], source: GenerateLogProbs, initial_offset: int = 0
) -> dict[str, Any]:
    """The completions `logprobs` object (parallel lists, absolute `text_offset`)."""
    text_offset: list[int] = []
    token_logprobs: list[float | None] = []
    tokens: list[str] = []
    top_logprobs: list[dict[str, float] | None] = []
    content = resolved.get("content")
    if content is not None:
        offset = initial_offset
        for entry, src in zip(content, source.content or (), strict=False):
            text_offset.append(offset)
            tokens.append(entry["token"])
            token_logprobs.append(entry["logprob"])
            if src.get("top_logprobs"):
                top_logprobs.append({t["token"]: t["logprob"] for t in entry["top_logprobs"]})
            else:
                top_logprobs.append(None)
            offset += len(entry["token"])
    return {
        "text_offset": text_offset,
        "token_logprobs": token_logprobs,
        "tokens": tokens,
        "top_logprobs": top_logprobs,
    }
