"""`gemma4`: Gemma 4 channel reasoning and `<|tool_call>` calls in its own argument syntax.

    <|channel>thought
    ...reasoning...<channel|>
    <|tool_call>call:NAME{key:<|"|>text<|"|>,n:42,obj:{k:<|"|>v<|"|>},xs:[1,2]}<tool_call|>

Strings are delimited by `<|"|>`; bare values (numbers, booleans) are typed from the tool
schema. Arguments stream as JSON while their serialisation cannot change; an open trailing
string value is extended without re-parsing. Reasoning (only with `enable_thinking`) loses
its leading `thought\\n`; a first chunk that looks like reasoning without the opener gets
one, and a prompt ending inside an open channel starts in reasoning.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import cache
from typing import Any

from tokenfront.parsers.base import DeltaMessage, JSONState, ParseContext
from tokenfront.parsers.engines.last_read import LastRead
from tokenfront.parsers.engines.xml_params import (
    E_CALL_END,
    E_CALL_START,
    E_REASONING_END,
    E_REASONING_START,
    S_ARGS,
    S_CONTENT,
    S_NAME,
    S_PREAMBLE,
    S_REASONING,
    Event,
    Grammar,
    MarkupToolParser,
)
from tokenfront.parsers.registry import tool_parser

CHANNEL_START, CHANNEL_END = "<|channel>", "<channel|>"
TOOL_START, TOOL_END = "<|tool_call>", "<tool_call|>"
DELIM = '<|"|>'
BOUNDARIES = frozenset({"<|turn>", "<|tool_response>"})
THOUGHT_PREFIX = "thought\n"
_PARTIAL_DELIMS = tuple(DELIM[:k] for k in range(len(DELIM), 0, -1))
STRUCTURAL = frozenset(",:{}[]<")


# ---- the argument syntax ---------------------------------------------------------------------
def strip_partial_delim(value: str) -> str:
    for suffix in _PARTIAL_DELIMS:
        if value.endswith(suffix):
            return value[: -len(suffix)]
    return value


def _skip_nested(text: str, i: int, opener: str, closer: str) -> tuple[int, int]:
    """Scan a nested `{...}` / `[...]` from just after its opener: (end index, depth left)."""
    depth, n = 1, len(text)
    while i < n and depth > 0:
        if text.startswith(DELIM, i):
            nxt = text.find(DELIM, i + len(DELIM))
            i = n if nxt == -1 else nxt + len(DELIM)
            continue
        if text[i] == opener:
            depth += 1
        elif text[i] == closer:
            depth -= 1
        i += 1
    return i, depth


# A partial read's fields before the last one it started stay the same in any longer text:
# the next, longer arguments of a stream chunk resume at that field.
_last_fields = LastRead()


def parse_fields(text: str, *, partial: bool = False) -> tuple[dict[str, Any], str | None]:
    """`key:value,...` as a dict, and the key of an unterminated trailing string value."""
    if not partial:
        fields, open_key, _, _ = _fields(text, False, 0, [])
        return dict(fields), open_key
    resumed = _last_fields.resumable(None, text)
    at, done = (0, []) if resumed is None else (resumed[0], list(resumed[1]))
    fields, open_key, last_start, complete = _fields(text, True, at, done)
    _last_fields.keep(None, text[: last_start + 1], (last_start, fields[:complete]))
    return dict(fields), open_key


def _fields(
    text: str, partial: bool, i: int, fields: list[tuple[str, Any]]
) -> tuple[list[tuple[str, Any]], str | None, int, int]:
    """Read fields from `i` on, after `fields`: all fields, the open string's key, where the
    last field read started and how many fields came before it."""
    last_start, complete = i, len(fields)
    if not text or not text.strip():
        return fields, None, last_start, complete
    n = len(text)
    while i < n:
        last_start, complete = i, len(fields)
        while i < n and text[i] in " ,\n\t":
            i += 1
        if i >= n:
            break
        start = i
        i = text.find(":", i)
        if i == -1:
            break
        key = text[start:i].strip()
        if key.startswith(DELIM) and key.endswith(DELIM):
            key = key[len(DELIM) : -len(DELIM)]
        i += 1
        while i < n and text[i] in " \n\t":
            i += 1
        if i >= n:
            if not partial:
                fields.append((key, ""))
            break
        if text.startswith(DELIM, i):
            i += len(DELIM)
            end = text.find(DELIM, i)
            if end == -1:
                value = text[i:]
                fields.append((key, strip_partial_delim(value) if partial else value))
                return fields, key, last_start, complete
            fields.append((key, text[i:end]))
            i = end + len(DELIM)
        elif text[i] in "{[":
            value, i = _nested_value(text, i)
            fields.append((key, value))
        else:
            raw, i = _bare_value(text, i, ",}]", partial)
            if raw is None:
                break
            fields.append((key, raw))
    return fields, None, last_start, complete


def _nested_value(text: str, i: int) -> tuple[Any, int]:
    """The `{...}` / `[...]` value opening at `i` (an open one read as partial), and its end."""
    opener = text[i]
    closer = "}" if opener == "{" else "]"
    sub = i + 1
    i, depth = _skip_nested(text, sub, opener, closer)
    parse = _parse_object if opener == "{" else parse_array
    return (parse(text[sub:i], True) if depth > 0 else parse(text[sub : i - 1], False)), i


_STOPS = {stops: re.compile("[" + re.escape(stops) + "]") for stops in (",}]", ",]")}


def _bare_value(text: str, i: int, stops: str, partial: bool) -> tuple[str | None, int]:
    """The bare value from `i` up to one of `stops`, and its end (None: no value to take)."""
    start, n = i, len(text)
    stop = _STOPS[stops].search(text, i)
    i = n if stop is None else stop.start()
    if partial and i >= n:
        return None, i
    if i == start:
        return None, i
    raw = text[start:i].strip()
    if partial and raw.endswith("."):
        return None, i
    return raw, i


def _parse_object(text: str, partial: bool) -> dict[str, Any]:
    return dict(_fields(text, partial, 0, [])[0])


def parse_array(text: str, partial: bool) -> list[Any]:
    items: list[Any] = []
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i] in " ,\n\t":
            i += 1
        if i >= n:
            break
        if text.startswith(DELIM, i):
            i += len(DELIM)
            end = text.find(DELIM, i)
            if end == -1:
                items.append(text[i:])
                break
            items.append(text[i:end])
            i = end + len(DELIM)
        elif text[i] in "{[":
            value, i = _nested_value(text, i)
            items.append(value)
        else:
            raw, i = _bare_value(text, i, ",]", partial)
            if raw is None:
                break
            items.append(raw)
    return items


def drop_call_closer(text: str, paren_excess: bool) -> str:
    if text.endswith("}") or (text.endswith(")") and paren_excess):
        return text[:-1]
    return text


class Gemma4ArgCodec:
    """Raw Gemma 4 arguments -> JSON; follows an open trailing `<|"|>` string."""

    def convert(self, raw: str, partial: bool) -> str:
        text = raw.strip()
        text = drop_call_closer(text, text.count("(") < text.count(")"))
        return json.dumps(parse_fields(text, partial=partial)[0], ensure_ascii=False)

    def open_value(self, raw: str) -> dict[str, Any] | None:
        text = raw.strip()
        opens, closes = text.count("("), text.count(")")
        body = drop_call_closer(text, opens < closes)
        params, open_key = parse_fields(body, partial=True)
        if open_key is None or next(reversed(params)) != open_key:
            return None
        held_len = len(raw) - len(raw.rstrip()) + len(text) - len(strip_partial_delim(body))
        held = raw[len(raw) - held_len :] if held_len else ""
        return {"held": held, "opens": opens, "closes": closes}

    def extend(self, state: dict[str, Any], delta: str) -> str | None:
        text = state["held"] + delta
        if DELIM in text:
            return None
        state["opens"] += delta.count("(")
        state["closes"] += delta.count(")")
        visible = strip_partial_delim(drop_call_closer(text.rstrip(), state["opens"] < state["closes"]))
        state["held"] = text[len(visible) :]
        return json.dumps(visible, ensure_ascii=False)[1:-1]


# ---- the grammar -------------------------------------------------------------------------------
@cache
def gemma4_grammar(thinking: bool) -> Grammar:
    markers = {"THINK_START": CHANNEL_START, "THINK_END": CHANNEL_END,
               "TOOL_START": TOOL_START, "TOOL_END": TOOL_END}  # fmt: skip
    return Grammar(
        name="gemma4",
        terminals={**markers, "CALL_PREFIX": "call:", "COLON": ":", "OPEN_BRACE": "{", "OPEN_PAREN": "("},
        token_terminals=markers,
        transitions={
            (S_CONTENT, "THINK_START"): (S_REASONING, (E_REASONING_START,)),
            (S_REASONING, "THINK_START"): (S_REASONING, ()),
            (S_REASONING, "THINK_END"): (S_CONTENT, (E_REASONING_END,)),
            (S_REASONING, "TOOL_START"): (S_PREAMBLE, (E_REASONING_END, E_CALL_START)),
            (S_CONTENT, "TOOL_START"): (S_PREAMBLE, (E_REASONING_END, E_CALL_START)),
            (S_PREAMBLE, "TOOL_END"): (S_CONTENT, (E_CALL_END,)),
            (S_PREAMBLE, "CALL_PREFIX"): (S_NAME, ()),
            (S_PREAMBLE, "COLON"): (S_NAME, ()),
            (S_NAME, "OPEN_BRACE"): (S_ARGS, ()),
            (S_NAME, "OPEN_PAREN"): (S_ARGS, ()),
            (S_NAME, "TOOL_END"): (S_CONTENT, (E_CALL_END,)),
            (S_ARGS, "TOOL_END"): (S_CONTENT, (E_CALL_END,)),
            (S_CONTENT, "TOOL_END"): (S_CONTENT, ()),
            (S_CONTENT, "THINK_END"): (S_CONTENT, ()),
        },
        codec=Gemma4ArgCodec(),
    )


def gemma4_thinking(kwargs: dict[str, Any]) -> bool:
    return bool(kwargs.get("enable_thinking", False))


def prompt_in_open_channel(prompt_ids: Sequence[int] | None, vocab_id: Any) -> bool:
    """Whether the prompt ends inside an open `<|channel>` block."""
    start = vocab_id(CHANNEL_START)
    if start is None or not prompt_ids:
        return False
    stops = {vocab_id(t) for t in (CHANNEL_END, TOOL_START, *BOUNDARIES)} - {None}
    for tid in reversed(prompt_ids):
        if tid == start:
            return True
        if tid in stops:
            return False
    return False


def needs_channel_opener(text: str) -> bool:
    """A first chunk that is reasoning whose `<|channel>` opener the model left out."""
    if not text or CHANNEL_START in text:
        return False
    return CHANNEL_END in text or text.startswith(THOUGHT_PREFIX) or text == "thought"


def strip_thought_prefix(
    st: JSONState, delta: DeltaMessage | None, finished: bool
) -> DeltaMessage | None:
    """Drop the `thought\\n` that opens the reasoning, however the chunks split it."""
    if delta is None or delta.reasoning is None or st.get("ps", True):
        return delta
    st["rt"] += delta.reasoning
    seen = st["rt"]
    if seen.startswith(THOUGHT_PREFIX):
        before = len(seen) - len(delta.reasoning)
        st["ps"] = True
        if before >= len(THOUGHT_PREFIX):
            return delta
        stripped = delta.reasoning[len(THOUGHT_PREFIX) - before :]
        if stripped:
            delta.reasoning = stripped
            return delta
        delta.reasoning = None
        return delta if delta.content is not None or delta.tool_calls else None
    if THOUGHT_PREFIX.startswith(seen):
        if finished:
            st["ps"] = True
        return None
    st["ps"] = True
    delta.reasoning = seen
    return delta


@tool_parser("gemma4")
class Gemma4ToolParser(MarkupToolParser):
    grammar_cached_on_thinking_switch = True
    name = "gemma4"
    grammar = gemma4_grammar(False)
    supports_required_and_named = False

    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        super().__init__(tokenizer, ctx)
        self.has_channel_ids = (
            self.vocab_id(CHANNEL_START) is not None and self.vocab_id(CHANNEL_END) is not None
        )

    def grammar_for(self, ctx: ParseContext) -> Grammar:
        return gemma4_grammar(gemma4_thinking(ctx.chat_template_kwargs or {}))

    def initial_state(self, start: str = S_CONTENT) -> JSONState:
        # Behind a reasoning parser the reasoning is over when this parser reads: only a tool
        # parser on its own starts inside a channel the prompt left open.
        behind_reasoning = not self.skip_reasoning_parsing and not self.skip_tool_parsing
        if not behind_reasoning and prompt_in_open_channel(self.ctx.prompt_token_ids, self.vocab_id):
            start = S_REASONING
        state = super().initial_state(start)
        state.update({"fed": False, "rt": "", "ps": False})
        if behind_reasoning:
            # Behind a reasoning parser the content this parser reads starts where the
            # reasoning's `<channel|>` was (see `_terminal`).
            state["ac"] = True
        return state

    def events_to_delta(
        self, state: JSONState, events: list[Any], finished: bool = False
    ) -> DeltaMessage | None:
        return strip_thought_prefix(state, super().events_to_delta(state, events, finished), finished)

    def feed(self, state: JSONState, text: str, ids: Sequence[int]) -> list[Any]:
        if not state.get("fed", True):
            state["fed"] = True
            if text and state["st"] == S_CONTENT and self.has_channel_ids and needs_channel_opener(text):
                text = CHANNEL_START + text
                if ids:
                    ids = [self.vocab_id(CHANNEL_START), *ids]  # type: ignore[list-item]
        return super().feed(state, text, ids)

    # Deviation from vLLM 0.33.0 (docs/deviations.md): a bare `call:NAME{...}` right after
    # `<channel|>` (the model left out `<|tool_call>`) is a call, as vLLM's
    # test_gemma4_regex_and_bare_calls.py::test_engine_tool_parser_bare_call_extraction asserts.
    # "ac" marks the spot just after a `<channel|>`; any other text or marker clears it.
    def _terminal(self, state: JSONState, terminal: str, text: str) -> list[Event]:
        after_channel = state.pop("ac", False)
        if after_channel and terminal == "CALL_PREFIX" and state["st"] == S_CONTENT:
            if not self.skip_tool_parsing:
                state["st"] = S_NAME
                state["ti"] += 1
                return [(E_CALL_START, text, state["ti"])]
        events = super()._terminal(state, terminal, text)
        if terminal == "THINK_END" and state["st"] == S_CONTENT:
            state["ac"] = True
        return events

    def _emit(self, state: JSONState, text: str) -> list[Event]:
        if text:
            state.pop("ac", None)
        return super()._emit(state, text)

    def _args_delta(self, slot: dict[str, Any], raw_delta: str) -> str | None:
        # vLLM's arg_structural_chars: without a followed open value, a delta with no
        # structural character cannot change the JSON.
        if slot["ov"] is None and STRUCTURAL.isdisjoint(raw_delta):
            return None
        return super()._args_delta(slot, raw_delta)
