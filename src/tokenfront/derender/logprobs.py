"""Turning generate's integer-id logprobs into the OpenAI chat and completions shapes."""

from __future__ import annotations

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
    if logprobs.content is None:
        return {"content": None}
    context = list(initial_context)
    content: list[LogprobEntry] = []
    token_string = view.token_string
    for entry in logprobs.content:
        token_id = entry["token_id"]
        tops = entry.get("top_logprobs") or ()
        if top_limit is not None:
            tops = tops[:top_limit]
        token_str, token_bytes = _resolve_one(view, token_string(token_id), token_id, context)
        top_out: list[LogprobEntry] = []
        for top in tops:
            top_id = top["token_id"]
            top_str, top_bytes = _resolve_one(view, token_string(top_id), top_id, context)
            top_out.append({"token": top_str, "logprob": top["logprob"], "bytes": top_bytes})
        content.append(
            {
                "token": token_str,
                "logprob": entry["logprob"],
                "bytes": token_bytes,
                "top_logprobs": top_out,
            }
        )
        context.append(token_id)
    return {"content": content}


def _resolve_one(
    view: TokenizerView,
    decoded: tuple[str, list[int]] | None,
    token_id: int,
    context: Sequence[int],
) -> tuple[str, list[int] | None]:
    """A candidate's string and bytes; a trailing U+FFFD is repaired from the context."""
    if decoded is None:
        return "", None
    text, raw = decoded
    if text.endswith(REPLACEMENT_CHAR):
        text = correct_token(view, token_id, context)
        return text, _utf8(text)
    return text, raw


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
