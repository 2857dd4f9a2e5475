"""Decoding one complete output the way vLLM's derender does (seeded window, stops, min_tokens)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tokenfront.derender.stops import drop_stop_token, find_stop_string, stop_strings
from tokenfront.tokenization.detokenizer import (
    DetokWindow,
    TokenizerView,
    detokenize_delta,
    seed_window,
    tokenizer_view,
)
from tokenfront.tokenization.registry import ServedModel

logger = logging.getLogger(__name__)
_warned_unseeded = False


@dataclass(frozen=True)
class DecodeParams:
    skip_special_tokens: bool
    spaces_between_special_tokens: bool


def decode_params(
    view: TokenizerView, request: Any | None, preserve_special: bool = False
) -> DecodeParams:
    """`skip_special_tokens` / `spaces_between_special_tokens` as vLLM's engine derives them.

    With a parser, special tokens are kept so it sees its markers.  The fast
    detokenizer always puts spaces between special tokens when it skips them.
    """
    skip = (
        False if preserve_special else (request is None or request.skip_special_tokens is not False)
    )
    spaces = request.spaces_between_special_tokens if request is not None else True
    if skip and view.fast_detokenizer:
        spaces = True
    return DecodeParams(skip, bool(spaces))


def seed(
    view: TokenizerView, prompt_token_ids: Sequence[int] | None, params: DecodeParams
) -> DetokWindow:
    """The window primed from the prompt tail; warns once when a SentencePiece model gets none."""
    global _warned_unseeded
    if prompt_token_ids is None and view.space_marker is not None and not _warned_unseeded:
        _warned_unseeded = True
        logger.warning(
            "derender got no prompt_token_ids, so the first output token may lose its "
            "leading space; pass prompt_token_ids from the render step to avoid this."
        )
    return seed_window(view, prompt_token_ids, params.skip_special_tokens)


def decode_output(
    model: ServedModel,
    token_ids: list[int],
    finish_reason: str | None,
    stop_reason: int | str | None,
    request: Any | None,
    window: DetokWindow,
    params: DecodeParams,
) -> tuple[str, int | str | None]:
    """A complete output's text and `stop_reason`, as the engine would have produced them.

    The stop token is dropped first; then the text is cut at the stop string that ended
    generation (the reported string, or the request's list when nothing was reported),
    counting only matches that end after the first `min_tokens` tokens.
    """
    view = tokenizer_view(model.tokenizer)
    reported = stop_reason
    ids, stop_reason = drop_stop_token(
        token_ids,
        finish_reason,
        stop_reason,
        request,
        model.eos_token_id,
        model.model_eos_token_ids,
    )
    if finish_reason != "stop" or isinstance(reported, int):
        stops: list[str] = []
    elif isinstance(reported, str):
        stops = [reported]
    else:
        stops = stop_strings(request)
    min_tokens = request.min_tokens if request is not None else 0
    skip, spaces = params.skip_special_tokens, params.spaces_between_special_tokens
    head, after_head = detokenize_delta(view, window, ids[:min_tokens], skip, spaces)
    tail, _ = detokenize_delta(view, after_head, ids[min_tokens:], skip, spaces)
    text = head + tail
    include = request is not None and request.include_stop_str_in_output
    match = find_stop_string(text, len(tail), stops, include)
    if match is None:
        return text, stop_reason
    stop_reason, cut = match
    return (text if cut == -1 else text[:cut]), stop_reason
