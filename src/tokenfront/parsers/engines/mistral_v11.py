"""Mistral v11+ tool calls: `[TOOL_CALLS]NAME{json}` or `[TOOL_CALLS]NAME[ARGS]{json}`, repeated.

vLLM runs this format through its declarative parser engine; this module is a small state
machine with the same observable behaviour:

* states: content -> (`[TOOL_CALLS]`) name -> (`[ARGS]` or `{`) args -> (`[TOOL_CALLS]`) name ...
* the `{` that ends a name is the first argument character; a `[TOOL_CALLS]` inside a name
  and a `{` / `[ARGS]` in content are plain text; other special tokens are dropped;
* argument text streams as written, a closing bracket at depth 0 held until the next character;
* a call's name is sent with its first argument chunk (or when the call ends);
* whitespace-only content next to calls is dropped, leading whitespace is held back until
  something non-blank (or the end) decides.

One-shot extraction keeps the first JSON value of each call's arguments (trailing text is
dropped) and coerces values to the tool's parameter types. A call whose name is never followed
by `{` or `[ARGS]` is the name with `{}` (streamed: with `""`), as vLLM 0.33.0 answers and its
tests/parser/mistral/test_tool_calls.py::test_extract_tool_calls_v11_without_args_skipped asserts.

Streaming state is a plain JSON dict (`new_state`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from tokenfront.parsers.base import (
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCalls,
    ToolCall,
)
from tokenfront.parsers.engines.content_whitespace import chunk_delta
from tokenfront.parsers.engines.json_array import held_json_char
from tokenfront.parsers.engines.markup_lexer import CONTENT, LiteralTable
from tokenfront.parsers.engines.schema_types import coerce_arguments

BOT = "[TOOL_CALLS]"
ARGS_MARK = "[ARGS]"
_BRACE = "{"
_CALLS, _ARGS, _OPEN, _DROP = "CALLS", "ARGS", "OPEN", "DROP"
# Parser states.
S_CONTENT, S_NAME, S_ARGS = "content", "name", "args"
# Events: (kind, value, call index).
E_TEXT, E_START, E_NAME, E_ARG, E_END = "text", "start", "name", "arg", "end"
# A call's name closed by `[ARGS]` (no argument text yet).
E_START_BODY = "body"
Event = tuple[str, str, int]
JSONState = dict[str, Any]


def _special_tokens(tokenizer: Any) -> list[str]:
    tokens = getattr(tokenizer, "all_special_tokens", None)
    if callable(tokens):
        tokens = tokens()
    return [t for t in tokens or () if isinstance(t, str) and t]


def build_lexer(tokenizer: Any) -> LiteralTable:
    """Markers plus every other special token of the tokenizer (dropped from the text)."""
    literals: dict[str, str] = {BOT: _CALLS, ARGS_MARK: _ARGS, _BRACE: _OPEN}
    for token in _special_tokens(tokenizer):
        literals.setdefault(token, _DROP)
    return LiteralTable((name, lit) for lit, name in literals.items())


def new_state() -> JSONState:
    return {
        "mode": S_CONTENT,
        "held": "",  # lexer tail that may still grow into a marker
        "tool": -1,
        "abuf": "",  # argument characters not yet released
        "depth": 0,
        "instr": False,
        "esc": False,
        "obj": False,  # the arguments opened with the `{` that ended the name (not counted in depth)
        "vend": False,  # the call's arguments JSON value is complete: later text is dropped
        # per call: name, args (all argument text), sent (name delivered), id,
        # body (the name was followed by `{` or `[ARGS]`)
        "slots": [],
        "deferred": "",
        "nonws": False,
    }


# ── text -> events ──────────────────────────────────────────────────────────────


def feed(lexer: LiteralTable, st: JSONState, text: str) -> list[Event]:
    tokens, st["held"] = lexer.feed(st["held"], text)
    return _tokens_to_events(st, tokens)


def finish_events(lexer: LiteralTable, st: JSONState) -> list[Event]:
    events = _tokens_to_events(st, lexer.flush(st["held"]))
    st["held"] = ""
    if st["abuf"]:
        events.append((E_ARG, st["abuf"], st["tool"]))
        st["abuf"] = ""
    if st["mode"] != S_CONTENT:
        if st["tool"] >= 0:
            events.append((E_END, "", st["tool"]))
        st["mode"] = S_CONTENT
    return events


def _tokens_to_events(st: JSONState, tokens: Iterable[tuple[str, str]]) -> list[Event]:
    events: list[Event] = []
    for name, value in tokens:
        if name == CONTENT:
            if value:
                events.extend(_text(st, value))
        else:
            events.extend(_terminal(st, name, value))
    return events


def _terminal(st: JSONState, terminal: str, value: str) -> list[Event]:
    mode = st["mode"]
    if terminal == _CALLS and mode in (S_CONTENT, S_ARGS):
        events: list[Event] = []
        if mode == S_ARGS:
            if st["abuf"]:
                events.append((E_ARG, st["abuf"], st["tool"]))
                st["abuf"] = ""
            events.append((E_END, "", st["tool"]))
        st["tool"] += 1
        st["mode"] = S_NAME
        events.append((E_START, "", st["tool"]))
        return events
    if mode == S_NAME and terminal in (_ARGS, _OPEN):
        opened = terminal == _OPEN
        st.update(mode=S_ARGS, depth=0, instr=False, esc=False, obj=opened, vend=False)
        return [(E_ARG, value, st["tool"])] if opened else [(E_START_BODY, "", st["tool"])]
    if terminal == _DROP:
        return []
    return _text(st, value)


def _text(st: JSONState, text: str) -> list[Event]:
    mode = st["mode"]
    if mode == S_CONTENT:
        return [(E_TEXT, text, st["tool"])]
    if mode == S_NAME:
        return [(E_NAME, text, st["tool"])]
    events: list[Event] = []
    if not st["vend"]:
        for i, ch in enumerate(text):
            depth, instr = st["depth"], st["instr"]
            released = held_json_char(st, ch, "abuf")
            if released:
                events.append((E_ARG, released, st["tool"]))
            if instr:  # a top-level string's closing quote ends the value
                ended = not st["instr"] and not depth and not st["obj"]
            elif st["obj"]:  # the `{` that opened the value is not counted in depth
                ended = ch == "}" and not depth
            else:
                ended = ch in "}]" and depth == 1
            if ended:
                st["vend"] = True
                if i + 1 == len(text):
                    return events
                break
        else:
            return events
    # text after the arguments' JSON value: dropped, as one-shot keeps the first value
    # (tests/parser/mistral/test_tool_calls.py::test_extract_tool_calls[trailing_text_after_json]);
    # a closing bracket held back goes out now, with the text that follows it
    if st["abuf"]:
        events.append((E_ARG, st["abuf"], st["tool"]))
        st["abuf"] = ""
    return events




# ── events -> deltas ────────────────────────────────────────────────────────────


def to_delta(
    st: JSONState,
    events: list[Event],
    new_id: Callable[[], str],
    *,
    suppress: bool = False,
    finished: bool = False,
) -> DeltaMessage | None:
    if not events and not st["deferred"]:
        return None
    slots: list[JSONState] = st["slots"]
    deltas: list[DeltaToolCall] = []
    parts: list[str] = []
    carried = st["deferred"]
    seen_tool = False
    for kind, value, idx in events:
        if kind == E_TEXT:
            if seen_tool:
                st["deferred"] += value
            else:
                parts.append(value)
            continue
        if suppress:
            continue
        seen_tool = True
        if kind == E_START:
            while len(slots) <= idx:
                slots.append({"name": "", "args": "", "sent": False, "id": "", "body": False})
        elif kind == E_NAME:
            slots[idx]["name"] += value
        elif kind == E_START_BODY:
            slots[idx]["body"] = True
        elif kind == E_ARG:
            slots[idx]["body"] = True
            _on_arg(slots[idx], idx, value, deltas, new_id)
        elif kind == E_END and idx < len(slots):
            _on_end(slots[idx], idx, deltas, new_id)
    return chunk_delta(
        st, parts, carried, deltas, seen_tool=seen_tool, has_slots=bool(slots), finished=finished
    )


def _send_name(slot: JSONState, idx: int, out: list[DeltaToolCall], new_id: Callable[[], str]) -> None:
    slot["sent"] = True
    slot["id"] = slot["id"] or new_id()
    out.append(DeltaToolCall(index=idx, id=slot["id"], type="function", name=slot["name"]))


def _on_arg(
    slot: JSONState, idx: int, value: str, out: list[DeltaToolCall], new_id: Callable[[], str]
) -> None:
    slot["args"] += value
    if slot["sent"]:
        if value:
            out.append(DeltaToolCall(index=idx, arguments=value))
    elif slot["name"] or value:
        _send_name(slot, idx, out, new_id)
        if value:
            out.append(DeltaToolCall(index=idx, arguments=value))


def _on_end(slot: JSONState, idx: int, out: list[DeltaToolCall], new_id: Callable[[], str]) -> None:
    if slot["sent"] or not (slot["body"] or slot["name"].strip()):
        return
    _send_name(slot, idx, out, new_id)  # a bare name (no `{` / `[ARGS]`) too, as in vLLM 0.33.0
    # with one-shot's empty arguments "{}" (vLLM 0.33.0 streams ""; the engine test asserts
    # "{}": tests/parser/mistral/test_tool_calls.py::test_extract_tool_calls_v11_without_args_skipped)
    out[-1].arguments = "{}"


# ── one-shot ───────────────────────────────────────────────────────────────────


def first_json_value(raw: str) -> str:
    """The first complete JSON value of a call's argument text (the stripped text if none)."""
    stripped = raw.strip()
    if not stripped:
        return "{}"
    try:
        _, end = json.JSONDecoder().raw_decode(stripped)
    except json.JSONDecodeError:
        return stripped
    return stripped[:end]


def extract(
    lexer: LiteralTable,
    text: str,
    new_id: Callable[[], str],
    tool_named: Callable[[str], dict[str, Any] | None],
    *,
    suppress: bool = False,
) -> ExtractedToolCalls:
    st = new_state()
    events = feed(lexer, st, text) + finish_events(lexer, st)
    delta = to_delta(st, events, new_id, suppress=suppress, finished=True)
    calls: list[ToolCall] = []
    for slot in st["slots"]:
        if not slot["name"] and not slot["args"]:
            continue
        name = slot["name"].strip()
        if not slot["body"] and not name:
            continue
        arguments = first_json_value(slot["args"])
        calls.append(
            ToolCall(
                name=name,
                arguments=coerce_arguments(arguments, tool_named(name)) if name else arguments,
                id=slot["id"] or new_id(),
            )
        )
    called = bool(calls)
    content = delta.content if delta else None
    if content and called:
        content = content.strip() or None
    return ExtractedToolCalls(tools_called=called, tool_calls=calls, content=content or None)
