"""Streamed text with every occurrence of one marker removed, its possible start held back.

Used by reasoning parsers whose own streaming parser keeps dropping a marker after the reasoning
ended (hunyuan_a13b's `\\n</answer>`, a repeated minimax_m2 `</think>`) while the served
pipeline sends post-reasoning text unparsed: the pipeline's `content_after_reasoning` hook runs
the text through `drop_marker_step`, and `drop_marker_flush` releases what is still held.
"""

from __future__ import annotations

from tokenfront.parsers.base import JSONState
from tokenfront.parsers.engines.json_in_markers import partial_tag_overlap


def drop_marker_step(state: JSONState, key: str, text: str, marker: str) -> str:
    """The part of `text` (plus what `key` held) that is sure not to belong to `marker`."""
    pending = state.get(key, "") + text
    pending = pending.replace(marker, "")
    held = partial_tag_overlap(pending, marker)
    state[key] = pending[len(pending) - held :] if held else ""
    return pending[: len(pending) - held]


def drop_marker_flush(state: JSONState, key: str) -> str:
    """What is still held at the end of the stream (a marker start that never completed)."""
    held = state.get(key, "")
    state[key] = ""
    return held
