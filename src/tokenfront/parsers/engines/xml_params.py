"""The grammar engine for XML-style function/parameter markup with schema-typed arguments.

A model format is a `Grammar`: literal terminals (some also recognised by token id), a state
machine `(state, terminal) -> (next state, events)` and an argument codec. The engine lexes
output text into terminals, drives the state machine, and turns its events into tool calls:
names as soon as known, arguments as a growing JSON object whose values are typed from the
request's tool schema and streamed only while their serialisation cannot change.

The behaviour (what counts as content, when a name or an argument fragment is emitted,
malformed and cut-off markup) follows vLLM's declarative parser engine, which the qwen3_coder,
qwen3_xml, seed_oss, glm45/glm47 and minimax_m2 tool parsers use. All streaming state is one
plain JSON-serialisable dict.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import regex

from tokenfront.identity_cache import IdentityCache
from tokenfront.parsers.base import (
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCalls,
    JSONState,
    ParseContext,
    ToolCall,
    ToolParser,
    merge_tool_deltas,
)
from tokenfront.parsers.engines.content_whitespace import settle_content
from tokenfront.parsers.engines.json_scan import stable_prefix
from tokenfront.parsers.engines.markup_lexer import (
    CONTENT,
    DROP,
    Lexeme,
    LiteralTable,
    Marker,
    ScanItem,
    Text,
    TokenScanner,
    flush_lexer,
    lex,
    lex_kept_text,
    lex_kept_think_blocks,
    silent_in_content,
)
from tokenfront.parsers.engines.schema_types import (
    has_tool,
    streamable_string_keys,
    tool_properties,
    type_arguments,
)
from tokenfront.parsers.engines.tool_span import tool_marker_counts
from tokenfront.parsers.engines.xml_args import ArgCodec
from tokenfront.tokenization.vocab import token_id as vocab_token_id

# Parser states.
S_CONTENT = "CONTENT"
S_REASONING = "REASONING"
S_PREAMBLE = "TOOL_PREAMBLE"
S_NAME = "TOOL_NAME"
S_ARGS = "TOOL_ARGS"
S_BETWEEN = "TOOL_BETWEEN"
TOOL_STATES = frozenset({S_PREAMBLE, S_NAME, S_ARGS, S_BETWEEN})
PLAIN_STATES = frozenset({S_CONTENT, S_REASONING})

# Events.
E_TEXT = "text"
E_REASONING = "reasoning"
E_REASONING_START = "reasoning_start"
E_REASONING_END = "reasoning_end"
E_CALL_START = "call_start"
E_NAME = "name"
E_ARGS = "args"
E_CALL_END = "call_end"
REASONING_EVENTS = frozenset({E_REASONING_START, E_REASONING_END})

Event = tuple[str, str, int]  # (kind, text, tool index)
Transitions = dict[tuple[str, str], tuple[str, tuple[str, ...]]]


@dataclass(frozen=True, eq=False)
class Grammar:
    """One model's output markup, declaratively."""

    name: str
    terminals: dict[str, str]  # terminal name -> literal
    transitions: Transitions
    codec: ArgCodec
    # Terminals that are single tokens: name -> token text (matched by id while streaming).
    token_terminals: dict[str, str] = field(default_factory=dict)
    content_events: dict[str, str] = field(
        default_factory=lambda: {
            S_CONTENT: E_TEXT,
            S_REASONING: E_REASONING,
            S_NAME: E_NAME,
            S_ARGS: E_ARGS,
        }
    )
    strip_trailing_reasoning_ws: bool = True
    drop_ws_only_content_before_tools: bool = True
    strip_content_ws_with_tools: bool = True
    # Calls to functions missing from the request's tools are dropped.
    validate_tool_names: bool = False
    # Surrounding whitespace of a call name is not part of it.
    strip_tool_names: bool = False
    # False: arguments are only sent when a call closes (vLLM's stream_arg_deltas).
    stream_arg_deltas: bool = True
    # Without an open-value follower, re-convert only on deltas holding one of these.
    arg_structural_chars: frozenset[str] | None = None
    # Derived: terminals touching tool states, those leaving them, reasoning-only markers.
    tool_terminals: frozenset[str] = field(init=False, default=frozenset())
    tool_exit_terminals: frozenset[str] = field(init=False, default=frozenset())
    reasoning_markup: frozenset[str] = field(init=False, default=frozenset())
    has_reasoning: bool = field(init=False, default=False)
    # ... and those that reopen the reasoning from the content, and close it again.
    reopen_terminals: frozenset[str] = field(init=False, default=frozenset())
    reclose_terminals: frozenset[str] = field(init=False, default=frozenset())
    # ... and those that leave the reasoning for a tool call (kept text: content from there)
    reasoning_tool_terminals: frozenset[str] = field(init=False, default=frozenset())
    # What kept text drops (stray special tokens, a `</think>` after the reasoning), and the
    # same when reasoning markup is text (no reasoning parser).
    kept_dropped: frozenset[str] = field(init=False, default=frozenset())
    kept_dropped_markup_kept: frozenset[str] = field(init=False, default=frozenset())

    def __post_init__(self) -> None:
        tool_terms = frozenset(
            t for (s, t), (n, _) in self.transitions.items() if n in TOOL_STATES or s in TOOL_STATES
        )
        exits = frozenset(
            t
            for (s, t), (n, _) in self.transitions.items()
            if s in TOOL_STATES and n not in TOOL_STATES
        )
        object.__setattr__(self, "tool_terminals", tool_terms)
        object.__setattr__(self, "tool_exit_terminals", exits)
        object.__setattr__(self, "reasoning_markup", self._reasoning_markup())
        silent = silent_in_content(self.transitions, S_CONTENT)
        object.__setattr__(self, "kept_dropped", frozenset({DROP} | silent))
        object.__setattr__(
            self, "kept_dropped_markup_kept", self.kept_dropped - self.reasoning_markup
        )
        steps = [(s, t, n) for (s, t), (n, _) in self.transitions.items()]
        reopen = frozenset(t for s, t, n in steps if s == S_CONTENT and n == S_REASONING)
        reclose = frozenset(t for s, t, n in steps if s == S_REASONING and n == S_CONTENT)
        object.__setattr__(self, "reopen_terminals", reopen)
        object.__setattr__(self, "reclose_terminals", reclose)
        to_tool = frozenset(t for s, t, n in steps if s == S_REASONING and n in TOOL_STATES)
        object.__setattr__(self, "reasoning_tool_terminals", to_tool)
        object.__setattr__(
            self,
            "has_reasoning",
            "THINK_END" in self.token_terminals
            or "THINK_START" in self.terminals
            or "THINK_END" in self.terminals,
        )

    def _reasoning_markup(self) -> frozenset[str]:
        """Reasoning-only markers, which pass through as text when no reasoning parser runs."""
        markers = frozenset(
            t
            for (s, t), (n, _) in self.transitions.items()
            if S_REASONING in (s, n) and n not in TOOL_STATES
        )
        for (s, t), (n, events) in self.transitions.items():
            if t in markers and (
                s not in PLAIN_STATES
                or n not in PLAIN_STATES
                or not REASONING_EVENTS.issuperset(events)
            ):
                return frozenset()
        return markers


class _Compiled:
    """A grammar bound to one tokenizer: marker ids, dropped special tokens, literal table."""

    def __init__(self, grammar: Grammar, tokenizer: Any) -> None:
        self.grammar = grammar
        id_terminals: dict[int, str] = {}
        literals = list(grammar.terminals.items())
        for name, text in grammar.token_terminals.items():
            token_id = _vocab_id(tokenizer, text)
            if token_id is not None:
                id_terminals[token_id] = name
        self.has_drops = False
        if tokenizer is not None:
            configured = set(grammar.token_terminals.values()) | set(grammar.terminals.values())
            try:
                specials = list(
                    zip(tokenizer.all_special_tokens, tokenizer.all_special_ids, strict=False)
                )
            except (AttributeError, NotImplementedError):
                specials = []
            for text, token_id in specials:
                if text not in configured:
                    id_terminals[token_id] = DROP
                    literals.append((DROP, text))
                    self.has_drops = True
        self.id_terminals = id_terminals
        self.drop_texts = tuple(text for name, text in literals if name == DROP)
        self.id_terminal_names = frozenset(id_terminals.values())
        self.table = LiteralTable(literals)
        self.scanner = TokenScanner(id_terminals, tokenizer)


def _vocab_id(tokenizer: Any, token: str) -> int | None:
    """The id of `token` if it is one vocabulary entry (`tokenization.vocab.token_id`)."""
    return None if tokenizer is None else vocab_token_id(tokenizer, token)


_COMPILED: IdentityCache[_Compiled] = IdentityCache()


def compile_grammar(grammar: Grammar, tokenizer: Any) -> _Compiled:
    """The grammar bound to this tokenizer, built once per (tokenizer, grammar)."""
    compiled = _COMPILED.get(tokenizer, grammar)
    if compiled is None:
        compiled = _COMPILED.put(tokenizer, _Compiled(grammar, tokenizer), grammar)
    return compiled


# The argument pieces of one chunk re-converted one by one before the rest is read as one text.
_RUN_RECONVERSIONS = 8

_NAME_IN_JSON = regex.compile(r'"name"\s*:\s*"([^"]*)"')


def _has_slot(state: JSONState, index: int) -> bool:
    """Whether `index` names a call slot (-1, before any opener, is the last one, as in vLLM)."""
    return -len(state["slots"]) <= index < len(state["slots"])


def _new_slot() -> dict[str, Any]:
    # id, name, raw args, name sent, streamable keys, streamed JSON, open-value state, it streams
    return {
        "id": "",
        "name": "",
        "args": "",
        "sent": False,
        "keys": None,
        "out": "",
        "ov": None,
        "ovs": False,
    }


class MarkupToolParser(ToolParser):
    """A tool parser defined by a `Grammar` (see the module docstring)."""

    engine_based: ClassVar[bool] = True
    supports_required_and_named: ClassVar[bool] = True
    grammar: ClassVar[Grammar]
    # A call start that never gets a name (`<tool_call>example</tool_call>`) does not turn
    # the text after it into post-call text (kept as content).
    content_around_unnamed_calls: ClassVar[bool] = False
    # The keys, in order, that may hold the arguments of a call body written as JSON.
    json_body_args_keys: ClassVar[tuple[str, ...]] = ("arguments", "parameters")
    # One-shot content ends with the text still deferred after the last call (`state["dc"]`).
    one_shot_keeps_deferred: ClassVar[bool] = False
    # A chunk's run of argument pieces of a named call is converted once, as one text (one
    # conversion per run keeps a chunk with many markers inside a value linear). False where
    # `_args_delta` reads each piece by itself (vLLM's structural-character skip, a piece
    # that is a cut closer).
    reads_argument_runs: ClassVar[bool] = True

    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        super().__init__(tokenizer, ctx)
        self.g = self.grammar_for(ctx)
        self.c = compile_grammar(self.g, tokenizer)
        # Set by the pipeline: no reasoning parser is configured, so reasoning markup is text.
        self.skip_reasoning_parsing = False
        # Set when the engine only splits reasoning (tool markup passes through as text).
        self.skip_tool_parsing = False

    def grammar_for(self, ctx: ParseContext) -> Grammar:
        """The grammar for this request (a spec may pick one by chat template kwargs)."""
        return self.grammar

    def kept_text(self, text: str) -> str:
        # the engine drops stray special tokens (`<|im_end|>` after a length cut) from any text
        for special in self.c.drop_texts:
            if special in text:
                text = text.replace(special, "")
        return text

    def kept_text_stream(self, state: JSONState, text: str, *, final: bool) -> str:
        g = self.g
        dropped = g.kept_dropped_markup_kept if self.skip_reasoning_parsing else g.kept_dropped
        return lex_kept_text(self.c.table, state, text, final=final, dropped=dropped)

    def kept_text_split(self, state: JSONState, text: str, *, final: bool) -> tuple[str, str]:
        # a grammar whose content reopens reasoning (`<think>` after `</think>`) still does so
        g = self.g
        if not g.reopen_terminals or self.skip_reasoning_parsing:
            return self.kept_text_stream(state, text, final=final), ""
        content, reasoning = lex_kept_think_blocks(
            self.c.table,
            state,
            text,
            final=final,
            dropped=g.kept_dropped,
            opens=g.reopen_terminals,
            closes=g.reclose_terminals,
            leaves=g.reasoning_tool_terminals,
        )
        if g.strip_trailing_reasoning_ws:  # trailing whitespace waits for more reasoning
            if reasoning:
                combined = state["dr"] + reasoning
                reasoning = combined.rstrip()
                state["dr"] = combined[len(reasoning) :]
            elif not state.get("kr"):
                state["dr"] = ""
        return content, reasoning

    def convert_args(self, raw: str, partial: bool, name: str) -> str:
        """Raw argument markup of the call `name` -> JSON object text (the grammar's codec)."""
        return self.g.codec.convert(raw, partial)

    def open_value(self, slot: dict[str, Any]) -> dict[str, Any] | None:
        """The codec's follower of the call's open trailing value (None: re-convert)."""
        return self.g.codec.open_value(slot["args"])

    # -- request facts --------------------------------------------------------------------

    @property
    def tools(self) -> list[dict[str, Any]] | None:
        return self.ctx.tools or None

    @property
    def suppress_calls(self) -> bool:
        return (
            not self.skip_tool_parsing and self.ctx.tool_choice == "none" and bool(self.ctx.tools)
        )

    # -- public API -----------------------------------------------------------------------

    def initial_state(self, start: str = S_CONTENT) -> JSONState:
        return {
            "st": start, "ti": -1, "tid": False, "lex": {}, "scan": {}, "span": False,
            "slots": [], "dc": "", "nonws": False, "rend": not self.g.has_reasoning, "dr": "",
        }  # fmt: skip

    def one_shot_state(self) -> JSONState:
        """A state for one-shot parsing: no argument deltas are worked out on the way (only
        the collected calls count), which keeps a long output linear."""
        return {**self.initial_state(), "one_shot": True}

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        state = self.one_shot_state()
        events = self.feed(state, text, ())
        events.extend(self.finish_events(state))
        delta = self.events_to_delta(state, events, finished=True)
        calls = self._collect_calls(state)
        content = delta.content if delta else None
        if self.one_shot_keeps_deferred:
            content = ((content or "") + state["dc"]) or None
        if content:
            content = self._final_content(content, bool(calls))
        return ExtractedToolCalls(tools_called=bool(calls), tool_calls=calls, content=content)

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> DeltaMessage | None:
        if not state:
            state.update(self.initial_state())
        events = self.feed(state, delta_text, delta_ids)
        return self._strip_trailing_reasoning(state, self.events_to_delta(state, events))

    def finish(self, state: JSONState) -> DeltaMessage | None:
        """End of stream: flush held text and close an open call."""
        if not state:
            return None
        events = self.finish_events(state)
        if events or state["dc"]:
            return self.events_to_delta(state, events, finished=True)
        return None

    # -- lexing and the state machine -----------------------------------------------------

    def feed(self, state: JSONState, text: str, ids: Sequence[int]) -> list[Event]:
        if ids:
            state["tid"] = True
        c = self.c
        if (
            text
            and not state["lex"].get("buf")
            and not TokenScanner.has_deferred(state["scan"])
            and c.table.first_chars.isdisjoint(text)
            and not any(t in c.id_terminals for t in ids)
        ):
            return self._emit(state, text)
        items = c.scanner.scan(state["scan"], text, ids)
        if len(items) == 1 and isinstance(items[0], Text):
            lexemes = lex(c.table, state["lex"], items[0].text)
            if len(lexemes) == 1 and lexemes[0][0] == CONTENT:
                return self._emit(state, lexemes[0][1])
            return self._lexemes(state, lexemes)
        return self._items(state, items)

    def finish_events(self, state: JSONState) -> list[Event]:
        events = self._items(state, self.c.scanner.flush(state["scan"]))
        events.extend(self._lexemes(state, flush_lexer(self.c.table, state["lex"])))
        if state["st"] in TOOL_STATES:
            if state["ti"] >= 0:
                events.append((E_CALL_END, "", state["ti"]))
            state["st"] = S_CONTENT
        elif state["st"] == S_REASONING:
            events.append((E_REASONING_END, "", state["ti"]))
            state["st"] = S_CONTENT
        return events

    def _items(self, state: JSONState, items: list[ScanItem]) -> list[Event]:
        events: list[Event] = []
        for item in items:
            if isinstance(item, Marker):
                events.extend(self._lexemes(state, flush_lexer(self.c.table, state["lex"])))
                events.extend(self._terminal(state, item.terminal, item.text))
            elif not item.text and item.count:
                events.extend(self._emit(state, ""))
            else:
                events.extend(self._lexemes(state, lex(self.c.table, state["lex"], item.text)))
        return events

    def _lexemes(self, state: JSONState, lexemes: list[Lexeme]) -> list[Event]:
        strict = self.c.id_terminal_names if state["tid"] else frozenset()
        events: list[Event] = []
        for terminal, text in lexemes:
            if terminal == CONTENT or terminal in strict:
                if text:
                    events.extend(self._emit(state, text))
            else:
                events.extend(self._terminal(state, terminal, text))
        return events

    def _emit(self, state: JSONState, text: str) -> list[Event]:
        kind = E_ARGS if state["st"] == S_ARGS else self.g.content_events.get(state["st"])
        return [(kind, text, state["ti"])] if kind is not None else []

    def _terminal(self, state: JSONState, terminal: str, text: str) -> list[Event]:
        g = self.g
        transition = g.transitions.get((state["st"], terminal))
        if transition is None:
            if self.c.has_drops and terminal == DROP:
                return []
            if self.skip_tool_parsing and terminal in g.tool_exit_terminals:
                state["span"] = False
            return self._emit(state, text)
        if self.skip_reasoning_parsing and terminal in g.reasoning_markup:
            return self._emit(state, text)
        next_state, kinds = transition
        opens = next_state in TOOL_STATES
        if (
            self.skip_tool_parsing
            and terminal in g.tool_terminals
            and tool_marker_counts(state, opens, terminal in g.tool_exit_terminals)
        ):
            if E_REASONING_END in kinds:
                state["st"] = S_CONTENT
                return [(E_REASONING_END, text, state["ti"]), (E_TEXT, text, state["ti"])]
            kind = g.content_events.get(state["st"])
            return [(kind, text, state["ti"])] if kind is not None else []
        state["st"] = next_state
        events: list[Event] = []
        for kind in kinds:
            if kind == E_CALL_START:
                state["ti"] += 1
            if kind == E_TEXT and not text:
                continue
            events.append((kind, text, state["ti"]))
        return events

    # -- events to deltas -----------------------------------------------------------------

    def events_to_delta(
        self, state: JSONState, events: list[Event], finished: bool = False
    ) -> DeltaMessage | None:
        if not events and not state["dc"]:
            return None
        calls: list[DeltaToolCall] = []
        content: list[str] = []
        reasoning: list[str] = []
        carried = state["dc"]
        seen_tool = False
        suppress = self.suppress_calls
        # argument texts of the call `run_index` whose name is sent, read as one text (one
        # conversion per run, not per piece; the pieces' deltas join into one anyway)
        run: list[str] = []
        run_index = 0
        for kind, text, index in events:
            if run and (kind != E_ARGS or index != run_index):
                self._on_args_run(state, run_index, run, calls)
                run = []
            if (
                kind == E_ARGS
                and text
                and self.reads_argument_runs
                and not suppress
                and _has_slot(state, index)
                and state["slots"][index]["sent"]
            ):
                seen_tool = True
                run.append(text)
                run_index = index
                continue
            if kind == E_TEXT:
                if seen_tool:
                    state["dc"] += text
                else:
                    content.append(text)
            elif kind == E_REASONING:
                reasoning.append(text)
            elif kind == E_REASONING_END:
                state["rend"] = True
            elif kind in (E_CALL_START, E_NAME, E_ARGS, E_CALL_END) and not suppress:
                seen_tool = True
                if kind == E_CALL_START:
                    while len(state["slots"]) <= index:
                        state["slots"].append(_new_slot())
                elif kind in (E_NAME, E_ARGS) and not _has_slot(state, index):
                    continue  # a name or arguments after a corrupted call opener: no call to fill
                elif kind == E_NAME:
                    state["slots"][index]["name"] += text
                elif kind == E_ARGS:
                    self._on_args(state, index, text, calls)
                else:
                    self._on_call_end(state, index, calls)
                    if (
                        self.content_around_unnamed_calls
                        and not calls
                        and _has_slot(state, index)
                        and not state["slots"][index]["sent"]
                        and not state["dc"][len(carried) :]
                    ):
                        seen_tool = False
        if run:
            self._on_args_run(state, run_index, run, calls)
        calls = merge_tool_deltas(calls)
        text_out = settle_content(
            state,
            content,
            carried,
            seen_tool=seen_tool,
            has_deltas=bool(calls),
            has_slots=bool(state["slots"]),
            finished=finished,
            deferred="dc",
            drop_before_calls=self.g.drop_ws_only_content_before_tools,
        )
        reasoning_out = "".join(reasoning) or None
        if text_out or calls or reasoning_out:
            return DeltaMessage(content=text_out or None, reasoning=reasoning_out, tool_calls=calls)
        return None

    def _strip_trailing_reasoning(
        self, state: JSONState, delta: DeltaMessage | None
    ) -> DeltaMessage | None:
        if not self.g.strip_trailing_reasoning_ws:
            return delta
        if delta is not None and delta.reasoning is not None:
            combined = state["dr"] + delta.reasoning
            trimmed = combined.rstrip()
            state["dr"] = combined[len(trimmed) :]
            delta.reasoning = trimmed or None
            if delta.reasoning is None and delta.content is None and not delta.tool_calls:
                return None
        elif state["dr"] and state["rend"]:
            state["dr"] = ""
        return delta

    def _accept_name(self, name: str) -> bool:
        if not name:
            return False
        if self.g.validate_tool_names and self.tools:
            return has_tool(self.tools, name)
        return True

    def _send_name(self, slot: dict[str, Any], name: str) -> None:
        slot["name"] = name
        slot["sent"] = True
        slot["keys"] = streamable_string_keys(tool_properties(self.tools, name))
        if not slot["id"]:
            slot["id"] = self.new_tool_call_id(name)

    def _on_args(self, state: JSONState, index: int, text: str, calls: list[DeltaToolCall]) -> None:
        slot = state["slots"][index]
        if text:
            slot["args"] += text
        if not slot["sent"]:
            name = slot["name"] or (self._name_from_json(slot["args"]) if text else None)
            if not slot["name"] and not text:
                return
            if name is not None and self.g.strip_tool_names:
                name = name.strip()
            if name is None or not self._accept_name(name):
                return
            self._send_name(slot, name)
            calls.append(DeltaToolCall(index=index, id=slot["id"], type="function", name=name))
        elif text and "one_shot" not in state:
            piece = self._args_delta(slot, text)
            if piece:
                calls.append(DeltaToolCall(index=index, arguments=piece))

    def _on_args_run(
        self, state: JSONState, index: int, pieces: list[str], calls: list[DeltaToolCall]
    ) -> None:
        """A chunk's argument pieces of a named call, read one by one as vLLM reads them: the
        open value's follower takes what it can, the others are re-converted, at most
        `_RUN_RECONVERSIONS` of them; past that the rest is read as one text, converted once
        (a chunk of many parameters stays linear)."""
        slot = state["slots"][index]
        taken = 0
        if "one_shot" not in state:
            budget = _RUN_RECONVERSIONS
            for piece in pieces[:-1]:
                if slot["ov"] is not None:
                    sent = self._extend_open_value(slot, piece)
                    if sent is not None:
                        slot["args"] += piece
                        taken += 1
                        if sent:
                            calls.append(DeltaToolCall(index=index, arguments=sent))
                        continue
                if not budget:
                    break
                budget -= 1
                self._on_args(state, index, piece, calls)
                taken += 1
        self._on_args(state, index, "".join(pieces[taken:]), calls)

    def _on_call_end(self, state: JSONState, index: int, calls: list[DeltaToolCall]) -> None:
        slots = state["slots"]
        if self.g.strip_tool_names and 0 <= index < len(slots):
            slots[index]["name"] = slots[index]["name"].strip()
        if not _has_slot(state, index):
            return
        slot = slots[index]
        remaining = self._flush_args(slot)
        if not slot["sent"]:
            name = slot["name"] or self._name_from_json(slot["args"]) or ""
            if self._accept_name(name):
                self._send_name(slot, name)
                calls.append(
                    DeltaToolCall(
                        index=index,
                        id=slot["id"],
                        type="function",
                        name=name,
                        arguments=remaining or "",
                    )
                )
                remaining = None
        if remaining and slot["sent"]:
            calls.append(DeltaToolCall(index=index, arguments=remaining))

    @staticmethod
    def _name_from_json(args: str) -> str | None:
        m = _NAME_IN_JSON.search(args)
        return m.group(1) if m and m.group(1) else None

    def _args_delta(self, slot: dict[str, Any], raw_delta: str) -> str | None:
        if not self.g.stream_arg_deltas:
            return None
        if slot["ov"] is not None:
            piece = self._extend_open_value(slot, raw_delta)
            if piece is not None:
                return piece or None
            slot["ov"] = None
        elif self.g.arg_structural_chars is not None and self.g.arg_structural_chars.isdisjoint(
            raw_delta
        ):
            return None
        try:
            current = self.convert_args(slot["args"], True, slot["name"])
        except (ValueError, TypeError):
            return None
        if not current:
            return None
        if slot["name"]:
            current = type_arguments(current, self.tools, slot["name"])
        prev = slot["out"]
        safe, value_streams = stable_prefix(current, slot["keys"])
        if not safe or (prev and not safe.startswith(prev)):
            return None
        slot["out"] = safe
        slot["ov"] = self.open_value(slot)
        slot["ovs"] = value_streams
        return safe[len(prev) :] or None

    def _extend_open_value(self, slot: dict[str, Any], raw_delta: str) -> str | None:
        """The JSON the open value's follower sends for `raw_delta` ("" for none), or None
        when it refuses it (the value ends in it: re-convert). A refusal changes nothing."""
        piece = self.g.codec.extend(slot["ov"], raw_delta)
        if piece is None:
            return None
        if not piece or not slot["ovs"]:
            return ""
        slot["out"] += piece
        return piece

    def _flush_args(self, slot: dict[str, Any]) -> str | None:
        try:
            final = self.convert_args(slot["args"], False, slot["name"])
        except (ValueError, TypeError):
            return None
        if final:
            final = type_arguments(final, self.tools, slot["name"])
        prev = slot["out"]
        if final and len(final) > len(prev):
            if prev and not final.startswith(prev):
                return None
            slot["out"] = final
            return final[len(prev) :]
        return None

    # -- one-shot results -----------------------------------------------------------------

    def _collect_calls(self, state: JSONState) -> list[ToolCall]:
        calls: list[ToolCall] = []
        for slot in state["slots"]:
            if not slot["name"] and not slot["args"]:
                continue
            name: Any = slot["name"].strip()
            body = slot["args"]
            if not name and body.strip():
                name, args = _name_and_args(body, self.json_body_args_keys)
            elif body.strip():
                try:
                    args = self.convert_args(body, False, name)
                except (ValueError, TypeError):
                    args = _name_and_args(body, self.json_body_args_keys)[1]
            else:
                args = "{}"
            if not isinstance(name, str) or not self._accept_name(name):
                continue
            calls.append(ToolCall(name=name, arguments=type_arguments(args, self.tools, name)))
        return calls

    def _final_content(self, content: str, tools_called: bool) -> str | None:
        if tools_called:
            if self.g.strip_content_ws_with_tools:
                content = content.strip()
            elif self.g.drop_ws_only_content_before_tools and not content.strip():
                content = ""
        return content or None


def _name_and_args(body: str, args_keys: tuple[str, ...]) -> tuple[Any, str]:
    """A call body written as JSON `{"name": ..., KEY: ...}` instead of markup (KEY: the first
    of `args_keys` present)."""
    body = body.strip()
    try:
        parsed = json.loads(body)
    except ValueError:
        return "", body
    if not isinstance(parsed, dict):
        return "", body
    name = parsed.get("name", "")
    for key in args_keys:
        if key in parsed:
            value = parsed[key]
            return name, value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return name, json.dumps({k: v for k, v in parsed.items() if k != "name"}, ensure_ascii=False)
