"""vLLM's engine rule for streamed content: content that is only whitespace waits until content
with other text (or the end of the output) arrives; in a tool engine, until a call shows it was
only the whitespace before the call (then it is dropped)."""

from __future__ import annotations

from typing import Any

from tokenfront.parsers.base import DeltaMessage, DeltaToolCall, merge_tool_deltas


def hold_leading_whitespace(
    state: dict[str, Any], text: str, finished: bool, *, held: str, seen: str
) -> str:
    """The content to send now; `state[held]` keeps whitespace that waits, `state[seen]`
    records that content with other text was sent (after which nothing waits)."""
    if state.get(held):
        text = state[held] + text
        state[held] = ""
    if not state.get(seen) and text:
        if text.strip():
            state[seen] = True
        elif not finished:
            state[held], text = text, ""
    return text


def settle_content(
    state: dict[str, Any],
    parts: list[str],
    carried: str,
    *,
    seen_tool: bool,
    has_deltas: bool,
    has_slots: bool,
    finished: bool,
    deferred: str = "deferred",
    seen: str = "nonws",
    drop_before_calls: bool = True,
) -> str:
    """A tool engine's content for one chunk. `parts` is the chunk's text before its first call
    event; `state[deferred]` holds text that waits: `carried` (held from earlier chunks) plus the
    text after this chunk's call events. The held text joins the content unless this chunk's
    calls sent a delta. Then whitespace-only content waits (`seen` as in
    `hold_leading_whitespace`); once a call slot exists it is dropped instead, unless
    `drop_before_calls` is off (then it is sent)."""
    if state[deferred] and (not seen_tool or not has_deltas):
        now = state[deferred][len(carried) :]
        if carried:
            parts.insert(0, carried)
        if now:
            parts.append(now)
        state[deferred] = ""
    content = "".join(parts)
    if not state[seen] and content:
        if content.strip():
            state[seen] = True
        elif has_slots:
            if drop_before_calls:
                content = ""
        elif not finished:
            state[deferred] = content
            content = ""
    return content


def chunk_delta(
    state: dict[str, Any],
    parts: list[str],
    carried: str,
    deltas: list[DeltaToolCall],
    *,
    seen_tool: bool,
    has_slots: bool,
    finished: bool,
) -> DeltaMessage | None:
    """A tool engine's delta for one chunk: its call deltas merged per call, and the content
    `settle_content` lets through; None when there is neither."""
    deltas = merge_tool_deltas(deltas)
    content = settle_content(
        state,
        parts,
        carried,
        seen_tool=seen_tool,
        has_deltas=bool(deltas),
        has_slots=has_slots,
        finished=finished,
    )
    if content or deltas:
        return DeltaMessage(content=content or None, tool_calls=deltas)
    return None
