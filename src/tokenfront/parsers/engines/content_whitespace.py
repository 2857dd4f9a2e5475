"""vLLM's engine rule for streamed content: content that is only whitespace waits until content
with other text (or the end of the output) arrives."""

from __future__ import annotations

from typing import Any


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
