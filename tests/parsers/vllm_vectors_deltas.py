"""Per-delta assertions of vLLM parser-test vectors (the `asserted` tokens `check_result` leaves
to its caller because they look at single streamed deltas, not the joined stream).

A vector with text `deltas` is streamed one delta per chunk, each chunk's token ids encoded from
its text (as the vLLM test fed them); one without is streamed one tokenizer token per chunk.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from vllm_vectors_run import request_context, vector_parser

from tokenfront.parsers.base import DeltaMessage

PER_DELTA = (
    "args_deltas_incremental",
    "delta_args_contains",
    "delta_indices",
    "single_tool_delta",
    "last_delta_content",
    "per_delta",
    "content_before_args",
)


def stream_deltas(vec: dict[str, Any]) -> list[DeltaMessage | None]:
    """One entry per chunk fed: the delta that chunk produced (None: nothing)."""
    parser, tok = vector_parser(vec)
    ctx = request_context(vec)
    if vec.get("deltas"):
        pieces = [(p, tok.encode(p, add_special_tokens=False)) for p in vec["deltas"]]
    else:
        ids = tok.encode(vec["model_output"], add_special_tokens=False)
        pieces, shown = [], ""
        for end in range(1, len(ids) + 1):
            full = tok.decode(ids[:end], skip_special_tokens=False)
            piece = "" if full.endswith("\ufffd") else full[len(shown) :]
            shown = full if piece else shown
            pieces.append((piece, ids[end - 1 : end]))
    out: list[DeltaMessage | None] = []
    state = None
    for i, (piece, piece_ids) in enumerate(pieces):
        delta, state = parser.stream(state, piece, piece_ids, ctx, finished=i == len(pieces) - 1)
        out.append(delta)
    return out


def _arg_fragments(deltas: list[DeltaMessage | None]) -> list[tuple[int, str]]:
    """(chunk number, argument text) of every non-empty argument fragment, in order."""
    return [
        (i, tc.arguments)
        for i, d in enumerate(deltas)
        if d is not None
        for tc in d.tool_calls
        if tc.arguments
    ]


def _is_json_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


def _args_incremental(vec: dict[str, Any], deltas: list[DeltaMessage | None]) -> list[str]:
    fragments = _arg_fragments(deltas)
    out = [
        f"argument fragment {text[:40]!r} restarts the object"
        for _, text in fragments[1:]
        if text.startswith("{") or _is_json_object(text)
    ]
    wanted = vec.get("args_deltas_before_close", 0)
    body = len({at for at, _ in fragments if 0 < at < len(deltas) - 1})
    if body < wanted:
        out.append(f"{body} body chunks carry arguments, wanted >= {wanted}")
    return out


def _delta_args_contains(vec: dict[str, Any], deltas: list[DeltaMessage | None]) -> list[str]:
    at = vec.get("delta_args_at", 1)
    delta = deltas[at] if at < len(deltas) else None
    calls = delta.tool_calls if delta is not None else []
    if len(calls) != 1 or vec["delta_args_contains"] not in (calls[0].arguments or ""):
        return [f"delta {at} carries {calls!r}, not one call with {vec['delta_args_contains']!r}"]
    return []


def _delta_indices(vec: dict[str, Any], deltas: list[DeltaMessage | None]) -> list[str]:
    got = [tc.index for d in deltas if d is not None for tc in d.tool_calls]
    return [] if got == vec["delta_indices"] else [f"tool-call delta indices {got}"]


def _single_tool_delta(vec: dict[str, Any], deltas: list[DeltaMessage | None]) -> list[str]:
    calls = [tc for d in deltas if d is not None for tc in d.tool_calls]
    if len(calls) != 1:
        return [f"{len(calls)} tool-call deltas, wanted one"]
    (call,) = calls
    (want,) = vec["expected"]["tool_calls"]
    try:
        complete = json.loads(call.arguments or "") == want["arguments"]
    except ValueError:
        complete = False
    if call.index != 0 or call.name != want["name"] or not complete:
        return [f"tool-call delta {call!r} is not the whole call"]
    return []


def _per_delta(vec: dict[str, Any], deltas: list[DeltaMessage | None]) -> list[str]:
    """`per_delta[i]`: what the i-th delta returns (None: not asserted; `returns_none`:
    nothing; else its `content` / `reasoning`, None meaning absent)."""
    out = []
    for at, want in enumerate(vec["per_delta"]):
        if want is None:
            continue
        got = deltas[at] if at < len(deltas) else None
        if want.get("returns_none"):
            if got is not None and (got.content or got.reasoning or got.tool_calls):
                out.append(f"delta {at} returns {got!r}, wanted nothing")
            continue
        for field in ("content", "reasoning"):
            if field in want and (getattr(got, field, None) or None) != want[field]:
                out.append(f"delta {at} {field} {getattr(got, field, None)!r} != {want[field]!r}")
    return out


def _content_before_args(vec: dict[str, Any], deltas: list[DeltaMessage | None]) -> list[str]:
    text = vec["content_contains"]
    word = vec.get("args_word", text.split()[-1])
    content = ""
    for at, delta in enumerate(deltas):
        if delta is None:
            continue
        if any(word in (tc.arguments or "") for tc in delta.tool_calls):
            return [f"arguments with {word!r} in delta {at}, before the content {text!r}"]
        content += delta.content or ""
        if text in content:
            return []
    return [f"content never holds {text!r}"]


CHECKS: dict[str, Callable[[dict[str, Any], list[DeltaMessage | None]], list[str]]] = {
    "args_deltas_incremental": _args_incremental,
    "delta_args_contains": _delta_args_contains,
    "delta_indices": _delta_indices,
    "single_tool_delta": _single_tool_delta,
    "last_delta_content": _per_delta,
    "per_delta": _per_delta,
    "content_before_args": _content_before_args,
}


def delta_problems(vec: dict[str, Any]) -> list[str]:
    """Problems with the per-delta assertions `vec` lists (empty: all met)."""
    deltas = stream_deltas(vec)
    return [p for what in vec["asserted"] if what in CHECKS for p in CHECKS[what](vec, deltas)]
