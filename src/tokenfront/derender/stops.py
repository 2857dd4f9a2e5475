"""Stop handling the way vLLM's engine applies it: stop tokens, EOS and stop strings."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any


def stop_strings(request: Any | None) -> list[str]:
    """The request's `stop` as a list (a bare string becomes one entry, empties dropped)."""
    if request is None or not request.stop:
        return []
    stop = request.stop
    return [stop] if isinstance(stop, str) else [s for s in stop if s]


def drop_stop_token(
    token_ids: list[int],
    finish_reason: str | None,
    stop_reason: int | str | None,
    request: Any | None,
    eos_token_id: int | None,
    model_eos_token_ids: frozenset[int],
) -> tuple[list[int], int | str | None]:
    """Leave out the token that stopped generation unless `include_stop_str_in_output`.

    A reported int `stop_reason` names that token.  Without one, the last id is checked
    against the primary EOS (reported as None), the request's `stop_token_ids` and the
    model's other EOS ids (reported as that id); `ignore_eos` disables the EOS checks.
    """
    if finish_reason != "stop" or isinstance(stop_reason, str) or not token_ids:
        return token_ids, stop_reason
    last = token_ids[-1]
    if stop_reason is None:
        honor_eos = request is None or not request.ignore_eos
        if honor_eos and last == eos_token_id:
            stopped = True
        elif (request is not None and last in (request.stop_token_ids or ())) or (
            honor_eos and last in model_eos_token_ids
        ):
            stopped = True
            stop_reason = last
        else:
            stopped = False
    else:
        stopped = last == stop_reason
    if not stopped or (request is not None and request.include_stop_str_in_output):
        return token_ids, stop_reason
    return token_ids[:-1], stop_reason


def find_stop_string(
    text: str, new_chars: int, stops: Sequence[str], include_in_output: bool
) -> tuple[str, int] | None:
    """The stop string that ends earliest in the last `new_chars` characters of `text`.

    Returns (stop string, cut position), the cut being -1 when nothing is to be removed.
    Ties go to the first string in `stops`.
    """
    if not new_chars or not stops:
        return None
    best: str | None = None
    best_start = 0
    best_end = sys.maxsize
    for stop in stops:
        start = text.find(stop, 1 - new_chars - len(stop))
        if start == -1:
            continue
        end = start + len(stop)
        if end < best_end:
            best, best_start, best_end = stop, start, end
    if best is None:
        return None
    if include_in_output:
        return (best, -1) if best_end >= len(text) else (best, best_end)
    return best, best_start
