"""A marker-switched output filter: Cohere Command's streaming parser model.

The output is one text stream in which marker strings switch the *mode* of what follows:
answer text (content), reasoning text, a JSON action list (tool calls) or ignored text.
A spec maps each marker to a mode and names the mode the output starts in. The filter
behaves like the `cohere-melody` filter that vLLM 0.33.0 delegates `cohere_command3/4` to:

* markers are found as text anywhere in the buffer; while the buffer ends in a proper prefix
  of a marker nothing is processed (the whole buffer waits for the next chunk);
* answer and reasoning text drop trailing whitespace until more text follows (and for good
  at the end), reasoning opened by a marker also drops its leading whitespace;
  `<co>text</co: 0:[1]>` citations are unwrapped (`cited_text.py`);
* an action list streams each call's id, name and raw `parameters` text
  (`action_list.py`); text the action parser could not use yet stays buffered and is dropped
  when a marker ends the action;
* ignored text is dropped, except for a tail that may begin a marker.

The whole state is a JSON-serialisable dict, so it can live in a derender `stream_state`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tokenfront.parsers.base import JSONState
from tokenfront.parsers.engines.action_list import new_action_state, parse_actions
from tokenfront.parsers.engines.cited_text import Batch, process_text

ANSWER = "answer"
REASON = "reason"
ACTION = "action"
IGNORE = "ignore"


@dataclass(frozen=True)
class ModeFilterSpec:
    """Marker text -> mode, and the mode the output starts in."""

    start_mode: str
    markers: dict[str, str] = field(default_factory=dict)


def new_state(spec: ModeFilterSpec) -> JSONState:
    state: JSONState = {
        "mode": spec.start_mode,
        "buf": "",
        "lt": False,  # drop leading whitespace of the next text
        "done": False,
        "ti": 0,  # characters of answer text so far (citation offsets)
        "cb": None,  # how far a still-open citation has been sent
    }
    state.update(new_action_state())
    return state


def _marker_scan(
    text: str, at: int, markers: dict[str, str], found: dict[str, int]
) -> tuple[int, str | None]:
    """Earliest full marker (idx, marker) or held partial tail (idx, None) in `text[at:]`,
    as offsets in `text`; (-1, None) if none. `found` remembers each marker's first
    offset at or after an earlier `at` (-1: none), so a later scan of the same text only
    looks again for markers that `at` has passed."""
    best = -1
    hit: str | None = None
    for marker in markers:
        idx = found.get(marker, -2)
        if idx == -2 or -1 < idx < at:
            idx = found[marker] = text.find(marker, at)
        if idx < 0:
            for k in range(min(len(marker), len(text) - at), 0, -1):
                if text.endswith(marker[:k]):
                    idx = len(text) - k
                    if best < 0 or idx < best:
                        best, hit = idx, None
                    break
            continue
        if best < 0 or idx < best:
            best, hit = idx, marker
    return best, hit


def _handle(spec: ModeFilterSpec, state: JSONState, mode: str, text: str, last: bool, out: Batch) -> int:
    """Process `text` under `mode`; returns how much of it is used up."""
    if mode == ACTION:
        return parse_actions(state, text, out)
    if mode in (ANSWER, REASON):
        return process_text(state, text, last, mode == REASON, out)
    return 0


def _enter(state: JSONState, mode: str) -> None:
    if mode == REASON:
        state["lt"] = True
    if mode in (ANSWER, REASON):  # citation offsets count from the start of each text part
        state["ti"] = 0


def write(spec: ModeFilterSpec, state: JSONState, text: str) -> Batch:
    """Feed one decoded chunk; returns what it releases."""
    out = Batch()
    if state["done"]:
        return out
    buf = state["buf"] + text
    at = 0  # the buffer before `at` is used up
    found: dict[str, int] = {}
    while True:
        idx, marker = _marker_scan(buf, at, spec.markers, found)
        if marker is not None:
            new_mode = spec.markers[marker]
            if idx > at:  # the text before the marker is final, whatever it could not use
                _handle(spec, state, state["mode"], buf[at:idx], True, out)
            _enter(state, new_mode)
            state["cb"] = None
            at = idx + len(marker)
            state["mode"] = new_mode
            continue
        state["buf"] = buf[at:]
        if idx < 0 and state["buf"]:  # else a partial marker at the end: wait with all of it
            used = _handle(spec, state, state["mode"], state["buf"], False, out)
            state["buf"] = state["buf"][used:]
        return _bounded(spec, state, out)


def _bounded(spec: ModeFilterSpec, state: JSONState, out: Batch) -> Batch:
    """Ignored text only matters for a marker it may begin: keep just that much of it."""
    if state["mode"] == IGNORE:
        keep = max(len(m) for m in spec.markers) - 1
        state["buf"] = state["buf"][-keep:] if keep else ""
    return out


def flush(spec: ModeFilterSpec, state: JSONState) -> Batch:
    """End of output: process what is still buffered."""
    out = Batch()
    state["done"] = True
    buf, state["buf"] = state["buf"], ""
    if buf:
        _handle(spec, state, state["mode"], buf, True, out)
    return out


def run_whole(spec: ModeFilterSpec, text: str) -> Batch:
    """One-shot: the whole output written at once, then flushed."""
    state = new_state(spec)
    out = write(spec, state, text)
    out.merge(flush(spec, state))
    return out

