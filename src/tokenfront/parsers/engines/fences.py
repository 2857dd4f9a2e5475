"""Markdown fenced code blocks in streamed text (CommonMark fence rules).

Used to keep tool-call markup that a model shows inside a fenced example as text. A fence
opens on a line of up to three spaces of indentation, then a run of at least three backticks
or tildes (a backtick fence's info string may not hold a backtick); it closes on a line with
the same indentation limit and a run of the same character at least as long, followed by
nothing but spaces or tabs. A line counts once it is complete (its newline seen).

The state is a plain list `[open run ("" when outside a fence), current line or None]`; the
line is kept only while it can still be a fence line.
"""

from __future__ import annotations

import re

FenceState = list[str | None]

_FENCE_LINE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)", re.DOTALL)
_MAY_BE_FENCE = re.compile(r" {0,3}(`+|~+)?$|" + _FENCE_LINE.pattern, re.DOTALL)
_MAX_LINE = 512


def new_fence_state() -> FenceState:
    return ["", ""]


def in_fence(state: FenceState) -> bool:
    return bool(state[0])


def at_line_start(state: FenceState) -> None:
    """The next text starts a line (after a structural block such as a tool call)."""
    state[1] = ""


def _end_line(state: FenceState, line: str) -> None:
    m = _FENCE_LINE.fullmatch(line)
    if m is None:
        return
    run, rest = m.group(1), m.group(2)
    opened = state[0] or ""
    if not opened:
        if not (run[0] == "`" and "`" in rest):
            state[0] = run
    elif run[0] == opened[0] and len(run) >= len(opened) and not rest.strip(" \t\r"):
        state[0] = ""


def feed_fences(state: FenceState, text: str) -> None:
    """Advance over `text` (which continues the current line)."""
    while text:
        cut = text.find("\n")
        piece = text if cut == -1 else text[:cut]
        line = state[1]
        if line is not None:
            line += piece
            if len(line) > _MAX_LINE or not _MAY_BE_FENCE.match(line):
                line = None
        if cut == -1:
            state[1] = line
            return
        if line is not None:
            _end_line(state, line)
        state[1] = ""
        text = text[cut + 1 :]
