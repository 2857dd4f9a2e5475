"""Reasoning split over a declarative marker grammar (vLLM's ParserEngine, reasoning pass).

vLLM runs qwen3, seed_oss, glm45, kimi_k2, minimax_m2 (and a few more) on one declarative
engine: literal terminals, a (state, terminal) -> (next state, events) table, and a lexer that
holds back possible marker prefixes. As a *reasoning* parser the engine runs with tool parsing
skipped: tool markup stays text, but a tool opener that implicitly ends reasoning still ends it.
Special tokens the grammar does not name are dropped from the text.

A parser here is a `GrammarSpec`: a function from "thinking enabled" to a `Grammar` plus how
the thinking switch is read from chat_template_kwargs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from tokenfront.identity_cache import IdentityCache
from tokenfront.parsers.base import DeltaMessage, JSONState, ParseContext, ReasoningParser
from tokenfront.parsers.engines.constrained_output import constrained_output, read_opening
from tokenfront.parsers.engines.content_whitespace import hold_leading_whitespace
from tokenfront.parsers.engines.markup_lexer import CONTENT, LiteralTable, ScannerDecoding
from tokenfront.parsers.engines.tool_span import tool_marker_counts
from tokenfront.tokenization.vocab import token_lookup

REASONING = "REASONING"
TEXT = "CONTENT"
TOOL_STATES = frozenset({"TOOL_PREAMBLE", "TOOL_NAME", "TOOL_ARGS", "TOOL_BETWEEN"})
PLAIN_STATES = frozenset({REASONING, TEXT})

END = "REASONING_END"
START = "REASONING_START"
DROP = "__DROP__"


@dataclass(frozen=True)
class Grammar:
    """One format: terminals, transitions and the reasoning-related switches."""

    terminals: dict[str, tuple[str, ...]]
    # (state, terminal) -> (next state, events); states: REASONING, CONTENT, TOOL_*.
    transitions: dict[tuple[str, str], tuple[str, tuple[str, ...]]]
    token_id_terminals: dict[str, str]
    initial_state: str = REASONING
    wait_for_reasoning: bool | None = None
    turn_boundaries: frozenset[str] = frozenset()
    strip_trailing_reasoning_ws: bool = True
    preserve_tokens: frozenset[str] = frozenset()

    @property
    def waits(self) -> bool:
        if self.wait_for_reasoning is None:
            return self.initial_state == REASONING
        return self.wait_for_reasoning


def think_toggle_default_on(kwargs: dict[str, Any]) -> bool:
    """`thinking` / `enable_thinking` kwargs, on unless one of them is given and falsy."""
    thinking = kwargs.get("thinking")
    enable = kwargs.get("enable_thinking")
    if thinking is None and enable is None:
        return True
    return bool(thinking) or bool(enable)


def enable_thinking_only(kwargs: dict[str, Any]) -> bool:
    """Qwen3 style: only `enable_thinking` counts, default on."""
    value = kwargs.get("enable_thinking", True)
    return bool(value) if value is not None else False


def always_on(kwargs: dict[str, Any]) -> bool:
    return True


@dataclass(frozen=True)
class GrammarSpec:
    build: Callable[[bool], Grammar]
    thinking: Callable[[dict[str, Any]], bool] = always_on
    # vLLM's extract_reasoning returns (None, text) when thinking is off.
    plain_when_off: bool = True


@dataclass
class _Compiled:
    grammar: Grammar
    lexer: LiteralTable
    tool_terminals: frozenset[str]
    tool_exit_terminals: frozenset[str]
    end_ids: frozenset[int]
    start_id: int | None
    end_id: int | None
    boundary_ids: frozenset[int]
    start_opens: bool
    decoding: ScannerDecoding | None = None
    content_events: dict[str, str] = field(default_factory=dict)
    # Every id `is_reasoning_end` reacts to: one set test per prompt token on the way back.
    decisive_ids: frozenset[int] = frozenset()

    def __post_init__(self) -> None:
        start = {self.start_id} if self.start_id is not None else set()
        self.decisive_ids = self.end_ids | self.boundary_ids | start


_CACHE: IdentityCache[tuple[GrammarSpec, _Compiled]] = IdentityCache()


def _compile(spec: GrammarSpec, thinking: bool, tokenizer: Any) -> _Compiled:
    key = (id(spec), thinking)
    cached = _CACHE.get(tokenizer, key)
    if cached is not None and cached[0] is spec:
        return cached[1]
    grammar = spec.build(thinking)
    vocab = token_lookup(tokenizer)
    literals = [(name, lit) for name, lits in grammar.terminals.items() for lit in lits]
    configured = {lit for _, lit in literals} | set(grammar.token_id_terminals.values())
    configured |= set(grammar.preserve_tokens)
    try:
        specials = list(tokenizer.all_special_tokens)
    except (AttributeError, NotImplementedError):
        specials = []
    literals += [(DROP, tok) for tok in specials if tok not in configured]

    tool_terminals = frozenset(
        term
        for (state, term), (nxt, _) in grammar.transitions.items()
        if nxt in TOOL_STATES or state in TOOL_STATES
    )
    tool_exits = frozenset(
        term
        for (state, term), (nxt, _) in grammar.transitions.items()
        if state in TOOL_STATES and nxt not in TOOL_STATES
    )
    end_ids = _reasoning_end_ids(grammar, vocab)
    start_text = grammar.token_id_terminals.get("THINK_START")
    end_text = grammar.token_id_terminals.get("THINK_END")
    start_tr = grammar.transitions.get((grammar.initial_state, "THINK_START"))
    lexer = LiteralTable(literals)
    compiled = _Compiled(
        grammar=grammar,
        lexer=lexer,
        tool_terminals=tool_terminals,
        tool_exit_terminals=tool_exits,
        end_ids=end_ids,
        start_id=vocab.get(start_text) if start_text else None,
        end_id=vocab.get(end_text) if end_text else None,
        boundary_ids=frozenset(vocab[t] for t in grammar.turn_boundaries if t in vocab),
        start_opens=start_tr is not None and start_tr[0] == REASONING,
        decoding=ScannerDecoding(tokenizer, lexer),
    )
    _CACHE.put(tokenizer, (spec, compiled), key)
    return compiled


def _reasoning_end_ids(grammar: Grammar, vocab: Mapping[str, int]) -> frozenset[int]:
    ends: dict[str, str] = {}
    for (state, term), (nxt, events) in grammar.transitions.items():
        if state != REASONING:
            continue
        if END in events:
            ends.setdefault(term, nxt)
        elif nxt != REASONING:
            return frozenset()
    ids: set[int] = set()
    for term, nxt in ends.items():
        text = grammar.token_id_terminals.get(term)
        tid = vocab.get(text) if text is not None else None
        if tid is not None:
            ids.add(tid)
        elif nxt == TEXT:
            return frozenset()
    return frozenset(ids)


class GrammarReasoningParser(ReasoningParser):
    """A reasoning parser driven by a `GrammarSpec` (set `spec` in the subclass)."""

    spec: ClassVar[GrammarSpec]
    engine_based: ClassVar[bool] = True
    # one-shot: a reasoning section the output closes at once is "" (vLLM 0.33.0: None), as
    # the parser's tests assert (docs/deviations.md)
    empty_reasoning_is_empty_string: ClassVar[bool] = False
    # ... only when the output opens the section itself (`<think></think>…`; kimi_k2's tests)
    empty_reasoning_needs_opener: ClassVar[bool] = False
    # Output a structured-output constraint shapes is content unless it opens with the think
    # start marker (`engines/constrained_output.py`; kimi_k2's tests).
    constrained_output_is_content: ClassVar[bool] = False

    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        super().__init__(tokenizer, ctx)
        self.thinking = self.spec.thinking(ctx.chat_template_kwargs or {})
        self.c = _compile(self.spec, self.thinking, tokenizer)
        self.prompt_closes = False
        self.constrained = (
            self.constrained_output_is_content
            and self.thinking
            and self.c.grammar.initial_state == REASONING
            and constrained_output(ctx)
        )
        # set by `stream` when constrained output turned out to be content from its start
        self.opened_as_content = False

    def _think_markers(self) -> tuple[str, str]:
        terminals = self.c.grammar.terminals
        return terminals["THINK_START"][0], terminals["THINK_END"][0]

    # ---- prompt facts -------------------------------------------------------------------
    def is_reasoning_end(self, token_ids: Sequence[int]) -> bool:
        c = self.c
        decisive = c.decisive_ids
        for tid in reversed(token_ids):
            if tid not in decisive:
                continue
            if tid in c.end_ids:
                return True
            if tid == c.start_id:
                if c.start_opens:
                    return False
                break
            if tid in c.boundary_ids:
                break
        return not c.grammar.waits

    def set_prompt_token_ids(self, prompt_token_ids: Sequence[int]) -> None:
        g = self.c.grammar
        self.prompt_closes = (
            g.initial_state == REASONING
            and bool(self.c.boundary_ids)
            and self.is_reasoning_end(prompt_token_ids)
        )

    def extract_content_ids(self, token_ids: Sequence[int]) -> list[int]:
        c = self.c
        ids = list(token_ids)
        if not c.grammar.waits:
            return ids
        if c.end_id is not None:
            for i in range(len(ids) - 1, -1, -1):
                if ids[i] == c.end_id:
                    return ids[i + 1 :]
        if c.end_ids:
            turn_start = 0
            for i in range(len(ids) - 1, -1, -1):
                if ids[i] in c.boundary_ids:
                    turn_start = i + 1
                    break
            for i in range(turn_start, len(ids)):
                if ids[i] in c.end_ids:
                    return ids[i:]
        return ids

    # ---- the state machine (reasoning pass: tool parsing skipped) -------------------------
    def _emit(self, st: JSONState, value: str) -> list[tuple[str, str]]:
        if st["st"] == REASONING:
            return [("R", value)]
        if st["st"] == TEXT:
            return [("T", value)]
        return []

    def _on_terminal(self, st: JSONState, term: str, value: str) -> list[tuple[str, str]]:
        c = self.c
        tr = c.grammar.transitions.get((st["st"], term))
        if tr is None:
            if term == DROP:
                return []
            if term in c.tool_exit_terminals:
                st["span"] = False
            return self._emit(st, value)
        nxt, events = tr
        if term in c.tool_terminals and tool_marker_counts(
            st, nxt in TOOL_STATES, term in c.tool_exit_terminals
        ):
            if END in events:
                st["st"] = TEXT
                return [(END, value), ("T", value)]
            return self._emit(st, value)
        st["st"] = nxt
        out: list[tuple[str, str]] = []
        for event in events:
            if event == END:
                out.append((END, value))
            elif event == START:
                out.append((START, value))
            elif event == "TEXT_CHUNK" and value:
                out.append(("T", value))
        return out

    def _process(self, st: JSONState, tokens: list[tuple[str, str]]) -> list[tuple[str, str]]:
        events: list[tuple[str, str]] = []
        for term, value in tokens:
            if term == CONTENT:
                if value:
                    events.extend(self._emit(st, value))
            else:
                events.extend(self._on_terminal(st, term, value))
        return events

    def _feed(self, st: JSONState, text: str) -> list[tuple[str, str]]:
        tokens, st["buf"] = self.c.lexer.feed(st["buf"], text)
        return self._process(st, tokens)

    def _finish_events(self, st: JSONState) -> list[tuple[str, str]]:
        tokens = self.c.lexer.flush(st["buf"])
        st["buf"] = ""
        events = self._process(st, tokens)
        if st["st"] == REASONING:
            events.append((END, ""))
            st["st"] = TEXT
        return events

    def _fresh(self, initial: str) -> JSONState:
        return {
            "st": initial,
            "buf": "",
            "span": False,
            "ended": False,
            "dc": "",
            "dr": "",
            "nonws": False,
        }

    # ---- one-shot -------------------------------------------------------------------------
    def extract_reasoning(self, text: str) -> tuple[str | None, str | None]:
        if not self.thinking and self.spec.plain_when_off:
            return None, text
        if self.constrained:
            if read_opening(text, *self._think_markers()) != "think":
                return None, text or None
            text = text.lstrip()
        g = self.c.grammar
        st = self._fresh(TEXT if self.prompt_closes else g.initial_state)
        st["once"] = True
        events = self._one_shot_order(self._feed(st, text) + self._finish_events(st))
        reasoning = "".join(v for k, v in events if k == "R")
        content = "".join(v for k, v in events if k == "T")
        if g.strip_trailing_reasoning_ws:
            reasoning = reasoning.rstrip()
        if not reasoning and self.empty_reasoning_is_empty_string and self._closed_empty(st, text):
            return "", content or None
        return reasoning or None, content or None

    def _one_shot_order(self, events: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """Hook: reorder a one-shot output's events before they are joined."""
        return events

    def _closed_empty(self, st: JSONState, text: str) -> bool:
        """Whether the output starts in a reasoning section that it closes at once (an empty
        output, `</think>…`, `<think></think>…`)."""
        g = self.c.grammar
        if self.prompt_closes or g.initial_state != REASONING:
            return False
        if not text:
            return not self.empty_reasoning_needs_opener
        opened = False
        for start in g.terminals.get("THINK_START", ()):
            if text.startswith(start):
                text, opened = text[len(start) :], True
                break
        if self.empty_reasoning_needs_opener and not opened:
            return False
        return any(text.startswith(end) for end in g.terminals.get("THINK_END", ()))

    # ---- streaming ------------------------------------------------------------------------
    def initial_state(self, prompt_token_ids: Sequence[int] | None) -> JSONState:
        state = self._fresh(self.c.grammar.initial_state)
        if self.constrained:
            state["opening"] = ""  # constrained output held until its start decides it
        return state

    def _to_delta(
        self, st: JSONState, events: list[tuple[str, str]], *, finished: bool
    ) -> DeltaMessage | None:
        if not events and not st["dc"]:
            return None
        content = "".join(v for k, v in events if k == "T")
        reasoning = "".join(v for k, v in events if k == "R")
        if any(k == END for k, _ in events):
            st["ended"] = True
        content = hold_leading_whitespace(st, content, finished, held="dc", seen="nonws")
        if content or reasoning:
            return DeltaMessage(content=content or None, reasoning=reasoning or None)
        return None

    def _strip_reasoning(self, st: JSONState, delta: DeltaMessage | None) -> DeltaMessage | None:
        if not self.c.grammar.strip_trailing_reasoning_ws:
            return delta
        if delta is not None and delta.reasoning is not None:
            combined = st["dr"] + delta.reasoning
            trimmed = combined.rstrip()
            st["dr"] = combined[len(trimmed) :]
            delta.reasoning = trimmed or None
            if delta.reasoning is None and delta.content is None:
                return None
        elif st["dr"] and st["ended"]:
            st["dr"] = ""
        return delta

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> tuple[DeltaMessage | None, bool]:
        if self.c.decoding is not None:
            self.c.decoding.check(state["buf"], delta_text, delta_ids)
        if "opening" in state:
            pending = state["opening"] + delta_text
            opening = read_opening(pending, *self._think_markers())
            if opening == "hold":
                state["opening"] = pending
                return None, False
            del state["opening"]
            if opening == "content":
                state["st"], state["ended"] = TEXT, True
                self.opened_as_content = True
                return DeltaMessage(content=pending), True
            delta_text = pending.lstrip()
        delta = self._to_delta(state, self._feed(state, delta_text), finished=False)
        return self._strip_reasoning(state, delta), state["ended"]

    def ends_at_finish(self, state: JSONState) -> bool:
        """Whether the end of the output ends the reasoning here: constrained output still
        held at its start is content."""
        if not state.get("opening"):
            return False
        state["st"], state["opening_flush"] = TEXT, state.pop("opening")
        return True

    def finish(self, state: JSONState) -> DeltaMessage | None:
        if "opening_flush" in state or "opening" in state:
            held = state.pop("opening_flush", None) or state.pop("opening", "")
            state["st"] = TEXT
            return DeltaMessage(content=held) if held else None
        events = self._finish_events(state)
        if events or state["dc"]:
            return self._to_delta(state, events, finished=True)
        return None
