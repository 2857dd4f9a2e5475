"""Engine for "JSON array after a prefix marker" tool calls (vLLM's `tool_call_body_array`).

Format: `content <marker> [{"name": ..., "arguments": {...}}, ...] trailing content`. The marker
is matched by token id when ids are known (a marker typed out as text is then content) and by
text otherwise; special tokens the format does not use are dropped. After the marker the array
is split into one call per `{...}` element, the `]` ends the region, and anything that is not
an array turns back into content.

Streaming sends a call's name once its `"name"` value is complete and its arguments as the
prefix of the `arguments` object that can no longer change: values are typed by the tool's JSON
schema, so a trailing non-string value is held until the next member or the end of the object.
The whole state is a plain dict (`new_state`), so it travels in `stream_state`.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tokenfront.parsers.base import (
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCalls,
    JSONState,
    ToolCall,
    random_tool_call_id,
)
from tokenfront.parsers.engines.content_whitespace import chunk_delta
from tokenfront.parsers.engines.json_calls import cached_vocab
from tokenfront.parsers.engines.json_scan import (
    member_object_span,
    name_and_arguments,
    stable_prefix,
)
from tokenfront.parsers.engines.last_read import LastRead
from tokenfront.parsers.engines.markup_lexer import (
    CONTENT,
    DROP,
    Lexeme,
    LiteralTable,
    Marker,
    Text,
    TokenScanner,
    flush_lexer,
    lex,
)
from tokenfront.parsers.engines.schema_types import (
    streamable_string_keys,
    tool_properties,
    type_arguments,
)

_JSON_WS = " \t\r\n"
_NAME_RE = re.compile(r'"name"\s*:\s*"([^"]*)"')
_name_scan = LastRead()  # `_NAME_RE` in a call's text: (where a match can start, found)


def _name_can_start(text: str, at: int) -> int:
    """Where a `_NAME_RE` match in a longer text can start when `text` (searched from `at`)
    has none: the match reads past its end, so it holds at most three of its quotes (those of
    `"name"` and the value's opening one) and starts at one of them."""
    quote = len(text)
    for _ in range(3):
        quote = text.rfind('"', at, quote)
        if quote == -1:
            return at
    return quote

# Terminals: a marker known by token id (typed-out text of it is content once ids are seen),
# a marker matched as text only.
MARKER_ID, MARKER_TEXT = "MARKER_ID", "MARKER_TEXT"
# Semantic events: (kind, value, call index).
TEXT, START, ARGS, END = "text", "start", "args", "end"
Event = tuple[str, str, int]


def continues_run(events: Sequence[Event], position: int) -> bool:
    """Whether the event after `position` is of the same kind for the same call (e.g. more
    arguments): work that only the run's end needs can wait for it."""
    if position + 1 >= len(events):
        return False
    kind, _, index = events[position + 1]
    return kind == events[position][0] and index == events[position][2]


@dataclass(frozen=True)
class ArrayCallsSpec:
    """One model format: the markers that open the array region."""

    name: str
    id_markers: tuple[str, ...]  # matched by token id when ids are given
    text_markers: tuple[str, ...]  # matched by text only


def arguments_of(raw: str, partial: bool) -> str:
    span = member_object_span(raw, "arguments")
    if span is None:
        return "" if partial else "{}"
    return span


def new_state() -> JSONState:
    return {
        "region": False,  # inside the array region
        "idx": -1,  # index of the last call started
        "had_ids": False,
        "scan": {},  # token scanner state
        "lex": {},  # literal lexer state
        # element argument buffer: text, safe end, depth, in string, escape
        "ab": "", "depth": 0, "instr": False, "esc": False,
        "arr": False, "elem": False,  # "[" seen, inside an element
        "slots": [],  # [id, name, args, name_sent, string_keys, streamed_json]
        "deferred": "", "nonws": False, "suppress": False,
    }  # fmt: skip


@dataclass
class _Lexing:
    """The per-tokenizer part of an engine: marker ids, dropped specials, literal table."""

    id_terminals: dict[int, str]
    has_drops: bool
    table: LiteralTable


_LEXING: weakref.WeakKeyDictionary[Any, dict[str, _Lexing]] = weakref.WeakKeyDictionary()


def _lexing(spec: ArrayCallsSpec, tokenizer: Any) -> _Lexing:
    try:
        per_tokenizer = _LEXING.setdefault(tokenizer, {})
    except TypeError:
        per_tokenizer = {}
    found = per_tokenizer.get(spec.name)
    if found is None:
        found = per_tokenizer[spec.name] = _build_lexing(spec, tokenizer)
    return found


def _build_lexing(spec: ArrayCallsSpec, tokenizer: Any) -> _Lexing:
    vocab = cached_vocab(tokenizer)
    configured = set(spec.id_markers) | set(spec.text_markers)
    id_terminals: dict[int, str] = {}
    for marker in spec.id_markers:
        token_id = vocab.get(marker)
        if token_id is not None:
            id_terminals[token_id] = MARKER_ID
    drops: list[str] = []
    try:
        specials = list(zip(tokenizer.all_special_tokens, tokenizer.all_special_ids, strict=False))
    except (AttributeError, NotImplementedError):
        specials = []
    for text, token_id in specials:
        if text not in configured:
            id_terminals[token_id] = DROP
            drops.append(text)
    literals = [(MARKER_ID, m) for m in spec.id_markers]
    literals += [(MARKER_TEXT, m) for m in spec.text_markers]
    literals += [(DROP, d) for d in drops]
    return _Lexing(id_terminals, bool(drops), LiteralTable(literals))


class ArrayCallsEngine:
    """Runs one `ArrayCallsSpec` over a tokenizer and the request's tools."""

    def __init__(self, spec: ArrayCallsSpec, tokenizer: Any, tools: list[dict[str, Any]] | None):
        self.spec = spec
        self.tools = tools
        lexing = _lexing(spec, tokenizer)
        self.has_drops = lexing.has_drops
        self.id_terminal_names = frozenset(lexing.id_terminals.values())
        self.scanner = TokenScanner(lexing.id_terminals, tokenizer)
        self.table = lexing.table

    # ── lexing ────────────────────────────────────────────────────────────
    def feed(self, st: JSONState, text: str, ids: Sequence[int]) -> list[Event]:
        if ids:
            st["had_ids"] = True
        scan = st["scan"]
        if (
            text
            and not st["lex"].get("buf")
            and not TokenScanner.has_deferred(scan)
            and self.table.first_chars.isdisjoint(text)
            and not any(i in self.scanner.id_terminals for i in ids)
        ):
            return self._emit(st, text)
        events: list[Event] = []
        for item in self.scanner.scan(scan, text, ids):
            events += self._item(st, item)
        return events

    def _item(self, st: JSONState, item: Marker | Text) -> list[Event]:
        if isinstance(item, Marker):
            events = self._lexemes(st, flush_lexer(self.table, st["lex"]))
            return events + self._terminal(st, item.terminal, item.text)
        if not item.text and item.count:
            return self._emit(st, "")
        return self._lexemes(st, lex(self.table, st["lex"], item.text))

    def _lexemes(self, st: JSONState, lexemes: list[Lexeme]) -> list[Event]:
        strict = self.id_terminal_names if st["had_ids"] else frozenset()
        events: list[Event] = []
        for terminal, text in lexemes:
            if terminal == CONTENT or terminal in strict:
                if text:
                    events += self._emit(st, text)
            else:
                events += self._terminal(st, terminal, text)
        return events

    def _terminal(self, st: JSONState, terminal: str, text: str) -> list[Event]:
        if terminal in (MARKER_ID, MARKER_TEXT) and not st["region"]:
            st["region"] = True
            st.update(depth=0, instr=False, esc=False, arr=False, elem=False)
            return []
        if terminal == DROP and self.has_drops:
            return []
        return self._emit(st, text)

    def finish(self, st: JSONState) -> list[Event]:
        events: list[Event] = []
        for item in self.scanner.flush(st["scan"]):
            events += self._item(st, item)
        events += self._lexemes(st, flush_lexer(self.table, st["lex"]))
        if st["ab"]:
            events.append((ARGS, st["ab"], st["idx"]))
            st["ab"] = ""
        if st["region"]:
            if st["elem"] and st["idx"] >= 0:
                events.append((END, "", st["idx"]))
            st["region"] = False
        return events

    # ── the array region ──────────────────────────────────────────────────
    def _emit(self, st: JSONState, text: str) -> list[Event]:
        if not st["region"]:
            return [(TEXT, text, st["idx"])]
        events: list[Event] = []
        for i, ch in enumerate(text):
            if not st["region"]:
                events.append((TEXT, text[i:], st["idx"]))
                break
            events += self._array_char(st, ch)
        return events

    def _array_char(self, st: JSONState, ch: str) -> list[Event]:
        if st["elem"]:
            events = self._args_char(st, ch)
            if ch == "}" and not st["instr"] and not st["esc"] and st["depth"] == 0:
                st["elem"] = False
                if st["ab"]:
                    events.append((ARGS, st["ab"], st["idx"]))
                    st["ab"] = ""
                events.append((END, "", st["idx"]))
            return events
        if ch in _JSON_WS:
            return []
        if not st["arr"]:
            if ch == "[":
                st["arr"] = True
                return []
            return self._bail(st, ch)
        if ch == ",":
            return []
        if ch == "{":
            st["idx"] += 1
            st.update(ab="", depth=0, instr=False, esc=False, elem=True)
            return [(START, "", st["idx"]), *self._args_char(st, ch)]
        if ch == "]":
            st["region"] = False
            st.update(arr=False, elem=False)
            return []
        return self._bail(st, ch)

    def _bail(self, st: JSONState, ch: str) -> list[Event]:
        st["region"] = False
        st.update(arr=False, elem=False)
        return [(TEXT, ch, st["idx"])]

    def _args_char(self, st: JSONState, ch: str) -> list[Event]:
        """Buffer one element character; a closing bracket at depth 0 is held back."""
        out = held_json_char(st, ch, "ab")
        return [(ARGS, out, st["idx"])] if out else []

    # ── events to deltas ─────────────────────────────────────────────────
    def to_delta(
        self, st: JSONState, events: list[Event], finished: bool = False
    ) -> DeltaMessage | None:
        if not events and not st["deferred"]:
            return None
        calls: list[DeltaToolCall] = []
        content_parts: list[str] = []
        carried = st["deferred"]
        seen_tool = False
        run: list[str] = []  # arguments events of one call in a row
        for position, (kind, value, index) in enumerate(events):
            if kind == TEXT:
                if seen_tool:
                    st["deferred"] += value
                else:
                    content_parts.append(value)
            elif st["suppress"]:
                continue
            elif kind == START:
                seen_tool = True
                while len(st["slots"]) <= index:
                    st["slots"].append(["", "", "", False, None, ""])
            elif kind == ARGS:
                seen_tool = True
                run.append(value)
                if not continues_run(events, position):
                    self._on_args(st, index, run, calls)
                    run = []
            elif kind == END:
                seen_tool = True
                self._on_end(st, index, calls)
        return chunk_delta(
            st,
            content_parts,
            carried,
            calls,
            seen_tool=seen_tool,
            has_slots=bool(st["slots"]),
            finished=finished,
        )

    def _name_of(self, slot: list[Any]) -> str | None:
        found = self._name_match(slot[2])
        return found[0] if found else None

    def _name_match(self, text: str) -> tuple[str, int] | None:
        """The name `_NAME_RE.search(text)` finds (None for none or an empty one) and where
        its match ends. Resumed where a search of a shorter text it starts with said a match
        can begin; the leftmost match, once found, stays."""
        last = _name_scan.resumable(_NAME_RE, text)
        at, matched = (0, False) if last is None else last
        if last is not None and not matched and '"' not in text[len(_name_scan.text) :]:
            _name_scan.keep(_NAME_RE, text, last)  # every match ends with a quote
            return None
        found = _NAME_RE.search(text, at)
        if found is None:
            _name_scan.keep(_NAME_RE, text, (_name_can_start(text, at), False))
            return None
        _name_scan.keep(_NAME_RE, text, (found.start(), True))
        return (found.group(1), found.end()) if found.group(1) else None

    def _open_call(self, slot: list[Any], name: str) -> None:
        slot[1] = name
        slot[3] = True
        slot[4] = streamable_string_keys(tool_properties(self.tools, name))
        if not slot[0]:
            slot[0] = random_tool_call_id()

    def _on_args(
        self, st: JSONState, index: int, values: list[str], calls: list[DeltaToolCall]
    ) -> None:
        """A run of arguments events of one call, answered as feeding them one at a time:
        the call opens at the event that completes its name, and its arguments are diffed
        once, at the run's last event, if it was open before that event (a run of
        one-character events costs one diff and one append, not one each)."""
        slot = st["slots"][index]
        start = len(slot[2])
        slot[2] += "".join(values)
        last_event_from = len(slot[2]) - len(values[-1])
        if not slot[3]:
            if slot[1]:
                name, opened_at = slot[1], start + len(values[0])
            else:
                found = self._name_match(slot[2])
                if found is None:
                    return
                name, opened_at = found
            self._open_call(slot, name)
            calls.append(DeltaToolCall(index=index, id=slot[0], type="function", name=name))
            if opened_at > last_event_from:
                return  # opened by the last event: no diff yet
        diff = self._args_diff(slot)
        if diff:
            calls.append(DeltaToolCall(index=index, arguments=diff))

    def _args_diff(self, slot: list[Any]) -> str | None:
        try:
            current = arguments_of(slot[2], True)
        except ValueError:
            return None
        if not current:
            return None
        if slot[1]:
            current = type_arguments(current, self.tools, slot[1])
        prev = slot[5]
        safe = stable_prefix(current, slot[4])[0]
        if not safe or (prev and not safe.startswith(prev)):
            return None
        slot[5] = safe
        return safe[len(prev) :] or None

    def _flush_args(self, slot: list[Any]) -> str | None:
        try:
            final = arguments_of(slot[2], False)
        except ValueError:
            return None
        if final:
            final = type_arguments(final, self.tools, slot[1])
        prev = slot[5]
        if final and len(final) > len(prev):
            if prev and not final.startswith(prev):
                return None
            slot[5] = final
            return final[len(prev) :]
        return None

    def _on_end(self, st: JSONState, index: int, calls: list[DeltaToolCall]) -> None:
        if index >= len(st["slots"]):
            return
        slot = st["slots"][index]
        rest = self._flush_args(slot)
        if not slot[3]:
            name = slot[1] or self._name_of(slot) or ""
            if name:
                self._open_call(slot, name)
                calls.append(
                    DeltaToolCall(index=index, id=slot[0], type="function", name=name,
                                  arguments=rest or "")
                )
                rest = None
        if rest and slot[3]:
            calls.append(DeltaToolCall(index=index, arguments=rest))

    # ── one-shot ──────────────────────────────────────────────────────────
    def extract(self, text: str, suppress: bool = False) -> ExtractedToolCalls:
        """One-shot parse; `suppress` (tool_choice "none" with tools) drops calls, keeps text."""
        st = new_state()
        st["suppress"] = suppress
        events = self.feed(st, text, [])
        events += self.finish(st)
        delta = self.to_delta(st, events, finished=True)
        calls: list[ToolCall] = []
        for slot in st["slots"]:
            if not slot[1] and not slot[2]:
                continue
            name = slot[1].strip()
            raw = slot[2]
            if not name and raw.strip():
                name, args = name_and_arguments(raw)
            elif raw.strip():
                try:
                    args = arguments_of(raw, False)
                except ValueError:
                    args = name_and_arguments(raw)[1]
            else:
                args = "{}"
            if name:
                calls.append(
                    ToolCall(name=name, arguments=type_arguments(args, self.tools, name),
                             id=slot[0] or random_tool_call_id())
                )
        content = delta.content if delta else None
        if content and calls:
            content = content.strip() or None
        return ExtractedToolCalls(tools_called=bool(calls), tool_calls=calls, content=content)


def held_json_char(st: JSONState, ch: str, buf: str) -> str:
    """Add one character of a JSON value to `st[buf]`, tracking strings and depth in
    `st["esc"]`, `st["instr"]`, `st["depth"]`; returns the text it releases ("" while a
    closing bracket back at depth 0 is held, since it may end the value)."""
    st[buf] += ch
    if st["esc"]:
        st["esc"] = False
    elif st["instr"]:
        if ch == "\\":
            st["esc"] = True
        elif ch == '"':
            st["instr"] = False
    elif ch == '"':
        st["instr"] = True
    elif ch in "{[":
        st["depth"] += 1
    elif ch in "}]":
        if st["depth"] > 0:
            st["depth"] -= 1
        if st["depth"] == 0:
            return ""
    released, st[buf] = st[buf], ""
    return released
