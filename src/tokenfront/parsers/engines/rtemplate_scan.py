"""The response-template region scanner, over a plain JSON state.

The text is consumed left to right. Outside an explicit region the scanner watches every
field's opener plus the implicit field's closer; inside one it watches only that region's
closer. Each watched delimiter is searched with partial matching: a delimiter that may still be
completing (a partial match, or a complete one at the end of the text that more text could
lengthen, i.e. any regex or a literal that prefixes another) holds back the text from its
start. The earliest complete delimiter that starts before every held one fires (longest on
ties, openers before closers). Text between delimiters goes to the current region (the
implicit one lazily opens on its first character; without an implicit field, such text is
dropped). Closing a region reads its body into a value; a failure marks it malformed.

Events are dicts: `region_open` / `region_close` / `region_malformed` with `field`, `start`,
`end` (offsets in the text after the anchor cut) and `delim` (the delimiter text written after
the prompt), `region_chunk` with `field` and `text`, closes with `value`; an explicit opener's
`region_open` also carries its named captures (`caps`).

State (`new_state` / `feed` / `finish`), all JSON: the unconsumed text `buf` from absolute
offset `base` (one character before `pos` is kept for `^` / look-behind context), the read
position `pos`, the prompt length `plen`, the current region `cur` / `opened` / `caps`, and
`body`: the whole body of a region whose value is structured, only a short tail for text
regions (their value is never used while serving).
"""

from __future__ import annotations

from typing import Any

from tokenfront.parsers.engines.rtemplate_spec import Field, Template
from tokenfront.parsers.engines.rtemplate_values import coerce_calls, field_value

Event = dict[str, Any]
State = dict[str, Any]
# Text regions keep this many trailing characters (enough to spot a cut closer).
_TEXT_TAIL = 256


def new_state(template: Template) -> State:
    return {
        "buf": "",
        "base": 0,
        "pos": 0,
        "plen": 0,
        "cur": template.implicit,
        "opened": False,
        "caps": {},
        "body": "",
        "done": False,
    }


def cut_at_anchor(template: Template, prompt: str) -> str:
    """The prompt after the last message-start anchor (the whole prompt without one)."""
    last = None
    for match in template.anchor.pattern.finditer(prompt):
        last = match.end()
    return prompt if last is None else prompt[last:]


def start(template: Template, prompt: str, tools: dict[str, dict[str, Any]]) -> tuple[State, list[Event]]:
    """A scanner positioned after the prompt's part of the assistant message."""
    state = new_state(template)
    events: list[Event] = []
    tail = cut_at_anchor(template, prompt)
    if tail:
        state["buf"] = tail
        _run(template, state, events, tools, eos=False)
        state["plen"] = len(tail)
    return state, events


def end_offset(state: State) -> int:
    """Length of all text seen (prompt part included)."""
    return int(state["base"]) + len(state["buf"])


def feed(template: Template, state: State, text: str, tools: dict[str, dict[str, Any]]) -> list[Event]:
    events: list[Event] = []
    state["buf"] += text
    _run(template, state, events, tools, eos=False)
    return events


def finish(template: Template, state: State, tools: dict[str, dict[str, Any]]) -> list[Event]:
    """End of output: flush held text and close the open region."""
    events: list[Event] = []
    _run(template, state, events, tools, eos=True)
    state["done"] = True
    return events


def open_region_text(state: State) -> str | None:
    """The text of the open region so far plus held text (None when no region is open)."""
    if state["cur"] is None or not state["opened"]:
        return None
    return str(state["body"]) + _pending(state)


def _pending(state: State) -> str:
    return str(state["buf"][state["pos"] - state["base"]:])


def _slice(state: State, begin: int, end: int) -> str:
    base = state["base"]
    return str(state["buf"][max(begin, base) - base : end - base])


# ---- the scanning loop -----------------------------------------------------------------------
_UNSEEN = object()


def _watch(template: Template, state: State) -> list[tuple[str, Field]]:
    current = state["cur"]
    if current is not None and current != template.implicit:
        f = template.fields[current]
        return [("close", f)] if f.closer is not None else []
    watch = [("open", f) for f in template.fields.values() if f.opener is not None]
    if template.implicit is not None:
        implicit = template.fields[template.implicit]
        if implicit.closer is not None:
            watch.append(("close", implicit))
    return watch


def _may_grow(kind: str, f: Field, match: Any, size: int) -> bool:
    if match.end() != size:
        return False
    if match.start() == match.end():
        return True
    delimiter = f.opener if kind == "open" else f.closer
    assert delimiter is not None
    return delimiter.literals is None or delimiter.can_extend


def _scan(
    template: Template, state: State, eos: bool, found: dict[int, Any]
) -> tuple[tuple[str, Field, Any] | None, int]:
    """The delimiter to fire now (local offsets) and where held text starts. `found` keeps
    each delimiter's last search in this buffer: the leftmost match from an earlier offset
    is still the leftmost from a later one at or before it (and no match stays none)."""
    buf = state["buf"]
    local = state["pos"] - state["base"]
    hold = len(buf)
    best_key: tuple[Any, ...] | None = None
    best: tuple[str, Field, Any] | None = None
    for kind, f in _watch(template, state):
        delimiter = f.opener if kind == "open" else f.closer
        assert delimiter is not None
        match = found.get(id(delimiter), _UNSEEN)
        if match is _UNSEEN or (match is not None and match.start() < local):
            match = found[id(delimiter)] = delimiter.pattern.search(buf, local, partial=not eos)
        if match is None:
            continue
        if not eos and (match.partial or _may_grow(kind, f, match, len(buf))):
            hold = min(hold, match.start())
            continue
        key = (match.start(), match.start() - match.end(), 0 if kind == "open" else 1, f.name)
        if best_key is None or key < best_key:
            best_key, best = key, (kind, f, match)
    if best is not None and best[2].start() >= hold:
        best = None
    return best, hold


def _run(template: Template, state: State, events: list[Event], tools: dict[str, dict[str, Any]], eos: bool) -> None:
    found: dict[int, Any] = {}  # the buffer stays the same until `_trim`
    while True:
        best, hold = _scan(template, state, eos, found)
        base = state["base"]
        if best is not None:
            kind, f, match = best
            begin, end = base + match.start(), base + match.end()
            if begin > state["pos"]:
                _add_text(template, state, events, _slice(state, state["pos"], begin))
            state["pos"] = end
            if kind == "open":
                _close(template, state, events, tools, begin, begin)
                _open(state, events, f, match, begin, end)
            else:
                had_text = state["opened"]
                _close(template, state, events, tools, begin, end)
                if not had_text and begin == end:
                    break
            continue
        size = base + len(state["buf"])
        if eos:
            if state["pos"] < size:
                _add_text(template, state, events, _slice(state, state["pos"], size))
                state["pos"] = size
            _close(template, state, events, tools, state["pos"], state["pos"])
            break
        if base + hold > state["pos"]:
            _add_text(template, state, events, _slice(state, state["pos"], base + hold))
            state["pos"] = base + hold
        break
    _trim(state)


def _trim(state: State) -> None:
    keep_from = max(state["base"], state["pos"] - 1)
    if keep_from > state["base"]:
        state["buf"] = state["buf"][keep_from - state["base"]:]
        state["base"] = keep_from


def _add_text(template: Template, state: State, events: list[Event], text: str) -> None:
    current = state["cur"]
    if not text or current is None:
        return
    f = template.fields[current]
    if not state["opened"]:
        events.append({"type": "region_open", "field": current, "start": state["pos"], "end": state["pos"], "delim": ""})
        state["opened"] = True
    body = state["body"] + text
    state["body"] = body if _keeps_body(f) else body[-_TEXT_TAIL:]
    # Held prompt characters belong to the prompt, not to the output.
    text = text[max(0, state["plen"] - state["pos"]):]
    if text:
        events.append({"type": "region_chunk", "field": current, "text": text})


def _keeps_body(f: Field) -> bool:
    return f.content != "text" or f.transform is not None or f.join is not None


def _open(state: State, events: list[Event], f: Field, match: Any, begin: int, end: int) -> None:
    state["cur"] = f.name
    state["caps"] = {key: value for key, value in match.groupdict().items() if value is not None}
    state["body"] = ""
    state["opened"] = True
    events.append({
        "type": "region_open", "field": f.name, "start": begin, "end": end,
        "delim": _slice(state, max(begin, state["plen"]), end) if end > state["plen"] else "",
        "caps": dict(state["caps"]),
    })


def _close(
    template: Template, state: State, events: list[Event], tools: dict[str, dict[str, Any]], begin: int, end: int
) -> None:
    current = state["cur"]
    if current is not None and state["opened"]:
        f = template.fields[current]
        delim = _slice(state, max(begin, state["plen"]), end) if end > state["plen"] else ""
        event: Event = {"field": current, "start": begin, "end": end, "delim": delim}
        try:
            value = field_value(state["body"], f, state["caps"]) if _keeps_body(f) else None
            if tools:
                value = coerce_calls(value, tools)
            if f.join is not None and not isinstance(value, str):
                raise ValueError(f"Field '{f.name}': 'join' needs string values")
            event.update(type="region_close", value=value)
        except (KeyError, TypeError, ValueError) as exc:
            event.update(type="region_malformed", error=str(exc))
        events.append(event)
    state["cur"] = template.implicit
    state["caps"] = {}
    state["body"] = ""
    state["opened"] = False
