"""Kimi-K2-style tool calls: `SECTION_START (CALL_START header ARG_START json CALL_END)*
SECTION_END`.

`SectionToolParser` is a small state machine over marker terminals; the call header carries
the call id (`functions.NAME:IDX`), the arguments are raw JSON streamed with the top-level
closing brace held back until the call ends. The spec is `parsers/tools/kimi_k2.py`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, ClassVar

from tokenfront.parsers.base import (
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCalls,
    JSONState,
    ParseContext,
    ToolCall,
    ToolParser,
)
from tokenfront.parsers.engines.content_whitespace import chunk_delta
from tokenfront.parsers.engines.json_array import continues_run, held_json_char
from tokenfront.parsers.engines.json_scan import name_and_arguments
from tokenfront.parsers.engines.markup_lexer import CONTENT as PLAIN_TEXT
from tokenfront.parsers.engines.markup_lexer import (
    LiteralTable,
    ScannerDecoding,
    lex_kept_text,
    silent_in_content,
)
from tokenfront.parsers.engines.retyped_json import settled_prefix
from tokenfront.parsers.engines.schema_types import coerce_arguments, function_properties

# Grammar states (strings so they travel in the JSON stream state).
CONTENT, REASONING, PREAMBLE, NAME, ARGS, BETWEEN = (
    "content",
    "reasoning",
    "preamble",
    "name",
    "args",
    "between",
)
TOOL_STATES = frozenset({PREAMBLE, NAME, ARGS, BETWEEN})
DROP = "__drop__"

# Events: (kind, value, tool index).
TEXT, CALL_START, CALL_NAME, CALL_ARGS, CALL_END = "text", "start", "name", "args", "end"
Event = tuple[str, str, int]


class SectionToolParser(ToolParser):
    """Kimi-K2-style calls: `SECTION_START (CALL_START header ARG_START json CALL_END)* SECTION_END`.

    The header is the call id (`functions.NAME:IDX`); the name is its last dotted part
    before `:IDX`. Text after the section is dropped; arguments are the raw JSON,
    re-serialised only when the tool schema coerces a value's type.
    """

    engine_based = True
    # The end of the output is the engine's last step, whose entries vLLM merges per call.
    finish_joins_last_call = True
    supports_required_and_named = False
    think_start: ClassVar[str] = "<think>"
    think_end: ClassVar[str] = "</think>"
    section_start: ClassVar[str] = "<|tool_calls_section_begin|>"
    section_end: ClassVar[str] = "<|tool_calls_section_end|>"
    call_start: ClassVar[str] = "<|tool_call_begin|>"
    call_end: ClassVar[str] = "<|tool_call_end|>"
    arg_start: ClassVar[str] = "<|tool_call_argument_begin|>"
    header_regex: ClassVar[re.Pattern[str]] = re.compile(r"(?P<id>.+:\d+)")
    # A header that is only a call counter (no function name): the name is inferred from
    # the request's tools (`infer_bare_name`); None keeps such a call nameless.
    bare_header_regex: ClassVar[re.Pattern[str] | None] = None

    # Streamed arguments end with the one-shot bytes when the tool schema retypes a value
    # (`retyped_json`); False streams the raw JSON text as vLLM 0.33.0 does.
    retype_streamed_args: ClassVar[bool] = False

    # Set True by the pipeline when no reasoning parser is configured: think markers are
    # then plain content rather than consumed (vLLM's `skip_reasoning_parsing`).
    skip_reasoning_parsing: bool = False

    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        super().__init__(tokenizer, ctx)
        kwargs = ctx.chat_template_kwargs or {}
        thinking, enable = kwargs.get("thinking"), kwargs.get("enable_thinking")
        self.thinking = True if thinking is None and enable is None else bool(thinking or enable)
        terminals = {
            self.section_start: "SECTION_START",
            self.section_end: "SECTION_END",
            self.call_start: "CALL_START",
            self.call_end: "CALL_END",
            self.arg_start: "ARG_START",
        }
        if self.thinking:
            terminals[self.think_start] = "THINK_START"
            terminals[self.think_end] = "THINK_END"
        literals = dict(terminals)
        for token in getattr(tokenizer, "all_special_tokens", None) or ():
            if token and token not in literals:
                literals[token] = DROP
        self.lexer = LiteralTable((name, lit) for lit, name in literals.items())
        self.decoding = ScannerDecoding(tokenizer, self.lexer)
        self.transitions: dict[tuple[str, str], tuple[str, tuple[str, ...]]] = {
            (CONTENT, "SECTION_START"): (PREAMBLE, ()),
            (PREAMBLE, "CALL_START"): (NAME, (CALL_START,)),
            (NAME, "ARG_START"): (ARGS, ()),
            (ARGS, "CALL_END"): (BETWEEN, (CALL_END,)),
            (ARGS, "SECTION_END"): (PREAMBLE, (CALL_END,)),
            (BETWEEN, "CALL_START"): (NAME, (CALL_START,)),
            (PREAMBLE, "SECTION_END"): (PREAMBLE, ()),
            (BETWEEN, "SECTION_END"): (PREAMBLE, ()),
        }
        if self.thinking:
            self.transitions[(CONTENT, "THINK_END")] = (CONTENT, ())
        self.suppress = bool(ctx.tools) and ctx.tool_choice == "none"

    def _kept_dropped(self) -> set[str]:
        """Lexemes the content state drops: stray special tokens, and a `</think>` after the
        reasoning unless reasoning parsing is skipped."""
        keep = ("THINK_START", "THINK_END") if self.skip_reasoning_parsing else ()
        return {DROP} | silent_in_content(self.transitions, CONTENT, keep=keep)

    def kept_text(self, text: str) -> str:
        dropped = self._kept_dropped()
        return "".join(value for name, value in self.lexer.flush(text) if name not in dropped)

    def kept_text_stream(self, state: JSONState, text: str, *, final: bool) -> str:
        return lex_kept_text(self.lexer, state, text, final=final, dropped=self._kept_dropped())

    # -- the grammar --------------------------------------------------------------

    def initial_state(self) -> JSONState:
        return {
            "mode": CONTENT,
            "held": "",  # lexer tail that may still become a marker
            "tool": -1,
            "abuf": "",  # argument text not yet emitted
            "depth": 0,
            "instr": False,
            "esc": False,
            "slots": [],  # per call: id, name, args (until named), sent
            "deferred": "",
            "nonws": False,
        }

    def _feed(self, st: JSONState, text: str, *, final: bool = False) -> list[Event]:
        if final:
            pieces, st["held"] = self.lexer.flush(st["held"] + text), ""
        else:
            pieces, st["held"] = self.lexer.feed(st["held"], text)
        events: list[Event] = []
        for terminal, value in pieces:
            if terminal == PLAIN_TEXT:
                events.extend(self._text(st, value))
            else:
                events.extend(self._terminal(st, terminal, value))
        return events

    def _terminal(self, st: JSONState, terminal: str, value: str) -> list[Event]:
        transition = self.transitions.get((st["mode"], terminal))
        if transition is None:
            if terminal == DROP:
                return []
            return self._text(st, value)
        if self.skip_reasoning_parsing and terminal in ("THINK_START", "THINK_END"):
            return self._text(st, value)
        target, kinds = transition
        events: list[Event] = []
        if st["mode"] == ARGS and target != ARGS and st["abuf"]:
            events.append((CALL_ARGS, st["abuf"], st["tool"]))
            st["abuf"] = ""
        st["mode"] = target
        for kind in kinds:
            if kind == CALL_START:
                st["tool"] += 1
            events.append((kind, value, st["tool"]))
        if target == ARGS:
            st.update(depth=0, instr=False, esc=False)
        return events

    def _text(self, st: JSONState, text: str) -> list[Event]:
        if not text:
            return []
        mode = st["mode"]
        if mode == CONTENT:
            return [(TEXT, text, st["tool"])]
        if mode == NAME:
            return [(CALL_NAME, text, st["tool"])]
        if mode == ARGS:
            events: list[Event] = []
            for ch in text:
                events.extend(self._arg_char(st, ch))
            return events
        return []

    def _arg_char(self, st: JSONState, ch: str) -> list[Event]:
        # A top-level close is held until something follows it.
        released = held_json_char(st, ch, "abuf")
        return [(CALL_ARGS, released, st["tool"])] if released else []

    def _finish_events(self, st: JSONState) -> list[Event]:
        events = self._feed(st, "", final=True)  # a held tail is text now
        if st["abuf"]:
            events.append((CALL_ARGS, st["abuf"], st["tool"]))
            st["abuf"] = ""
        if st["mode"] in TOOL_STATES:
            if st["tool"] >= 0:
                events.append((CALL_END, "", st["tool"]))
            st["mode"] = CONTENT
        return events

    # -- events to deltas -----------------------------------------------------------

    def _header(self, header: str | None) -> tuple[str | None, str | None]:
        if header is None:
            return None, None
        match = self.header_regex.match(header.strip())
        if not match:
            return None, None
        call_id = match.group("id").strip()
        return call_id, call_id.split(":")[0].removeprefix("functions.")

    @staticmethod
    def _name_in_args(args: str) -> str | None:
        match = re.search(r'"name"\s*:\s*"([^"]*)"', args)
        return match.group(1) or None if match else None

    def _bare_counter(self, header: str | None) -> str | None:
        if header is None or self.bare_header_regex is None:
            return None
        header = header.strip()
        return header if self.bare_header_regex.fullmatch(header) else None

    def infer_bare_name(self, args: str | None) -> str | None:
        """The tool a counter-only header calls: the only declared tool, or (several tools,
        complete `args`) the only one whose parameter properties hold every argument key."""
        functions = [
            t["function"]
            for t in self.ctx.tools or ()
            if isinstance(t, dict) and isinstance(t.get("function"), dict)
        ]
        named = [f for f in functions if isinstance(f.get("name"), str) and f["name"]]
        if len(named) == 1:
            return str(named[0]["name"])
        if args is None or len(named) < 2:
            return None
        try:
            parsed = json.loads(args)
        except ValueError:
            return None
        if not isinstance(parsed, dict):
            return None
        fits = []
        for function in named:
            props = function_properties(function)
            if props is not None and set(parsed) <= set(props):
                fits.append(function["name"])
        return str(fits[0]) if len(fits) == 1 else None

    def _send_bare(
        self, slot: dict[str, Any], idx: int, name: str, args: str, out: list[DeltaToolCall]
    ) -> None:
        slot.update(id=slot["bare"], name=name, sent=True, args="")
        out.append(
            DeltaToolCall(index=idx, id=slot["bare"], type="function", name=name, arguments=args)
        )

    def _send_name(
        self, slot: dict[str, Any], idx: int, header: str | None, out: list[DeltaToolCall]
    ) -> None:
        counter = self._bare_counter(header)
        if counter is not None:
            slot["bare"] = counter
            slot["name"] = ""
            name = self.infer_bare_name(None)
            if name:
                self._send_bare(slot, idx, name, "", out)
                out[-1].arguments = None
            return
        call_id, name = self._header(header)
        if not name:
            slot["name"] = ""
            return
        slot.update(id=call_id or "", name=name, sent=True, args="")
        out.append(
            DeltaToolCall(
                index=idx, id=slot["id"] or self.new_tool_call_id(name), type="function", name=name
            )
        )
        slot["id"] = out[-1].id

    def _to_delta(
        self, st: JSONState, events: list[Event], *, finished: bool = False
    ) -> DeltaMessage | None:
        if not events and not st["deferred"]:
            return None
        slots: list[dict[str, Any]] = st["slots"]
        deltas: list[DeltaToolCall] = []
        parts: list[str] = []
        carried = st["deferred"]
        seen_tool = False
        run: list[str] = []  # argument pieces of a call whose name is sent, read as one
        for position, (kind, value, idx) in enumerate(events):
            if kind == TEXT:
                if seen_tool:
                    st["deferred"] += value
                else:
                    parts.append(value)
                continue
            if self.suppress:
                continue
            seen_tool = True
            if kind == CALL_START:
                while len(slots) <= idx:
                    slots.append({"id": "", "name": "", "args": "", "sent": False})
            elif kind == CALL_NAME:
                slots[idx]["name"] += value
            elif kind == CALL_ARGS:
                more = continues_run(events, position)
                if more and slots[idx]["sent"]:
                    run.append(value)
                    continue
                if run:
                    value, run = "".join(run) + value, []
                self._on_args(slots[idx], idx, value, deltas, more)
            elif kind == CALL_END and idx < len(slots):
                self._on_end(slots[idx], idx, deltas)
        return chunk_delta(
            st, parts, carried, deltas, seen_tool=seen_tool, has_slots=bool(slots), finished=finished
        )

    def _on_args(
        self,
        slot: dict[str, Any],
        idx: int,
        value: str,
        out: list[DeltaToolCall],
        more_follow: bool = False,
    ) -> None:
        was_sent = slot["sent"]
        if not was_sent and value:
            slot["args"] += value
        if not was_sent and slot.get("bare") is not None:
            return  # the name is inferred from the complete arguments at the call's end
        if not slot["sent"]:
            if slot["name"]:
                self._send_name(slot, idx, slot["name"], out)
            elif value:
                self._send_name(slot, idx, self._name_in_args(slot["args"]), out)
        elif value or (not more_follow and "held" in slot):
            self._send_args(slot, idx, value, out, more_follow)
        if value and not was_sent and slot["sent"]:
            self._send_args(slot, idx, value, out, more_follow)

    def _retype_properties(self, slot: dict[str, Any]) -> dict[str, Any] | None:
        """The called tool's parameter properties when streamed arguments follow retyping."""
        if not self.retype_streamed_args or slot.get("bare") is not None:
            return None
        function = self.ctx.tool_named(slot["name"]) if slot["name"] else None
        return function_properties(function) or None

    def _send_args(
        self,
        slot: dict[str, Any],
        idx: int,
        value: str,
        out: list[DeltaToolCall],
        more_follow: bool = False,
    ) -> None:
        """Stream an arguments piece. Retyped arguments are settled once per run of pieces
        (`more_follow`: the next event extends them), not once per piece."""
        props = self._retype_properties(slot)
        if props is None:
            out.append(DeltaToolCall(index=idx, arguments=value))
            return
        slot["raw"] = slot.get("raw", "") + value
        if more_follow:
            slot["held"] = True
            return
        slot.pop("held", None)
        self._send_up_to(slot, idx, settled_prefix(slot["raw"], props), out)

    @staticmethod
    def _send_up_to(slot: dict[str, Any], idx: int, target: str, out: list[DeltaToolCall]) -> None:
        sent = slot.get("out", "")
        if len(target) > len(sent) and target.startswith(sent):
            slot["out"] = target
            out.append(DeltaToolCall(index=idx, arguments=target[len(sent) :]))

    def _on_end(self, slot: dict[str, Any], idx: int, out: list[DeltaToolCall]) -> None:
        if slot["sent"]:
            if "raw" in slot:
                # The rest of the one-shot arguments: retyped (`json.dumps`) when a value
                # changed type, else the raw text as it streams.
                raw = slot["raw"]
                body = raw.strip() or "{}"
                final = coerce_arguments(body, self.ctx.tool_named(slot["name"]))
                if final == body or not final.startswith(slot.get("out", "")):
                    final = raw  # as vLLM 0.33.0 streams (also when a guess went wrong)
                self._send_up_to(slot, idx, final, out)
            return
        if slot.get("bare") is None and self._bare_counter(slot["name"]) is not None:
            slot["bare"] = self._bare_counter(slot["name"])
            slot["name"] = ""
        if slot.get("bare") is not None:
            name = self.infer_bare_name(slot["args"])
            if name:
                self._send_bare(slot, idx, name, slot["args"], out)
            return
        call_id, name = self._header(slot["name"])
        if name:
            slot.update(id=call_id or "", name=name)
        name = slot["name"] or self._name_in_args(slot["args"]) or ""
        if name:
            slot.update(name=name, sent=True, args="")
            call_id = slot["id"] or self.new_tool_call_id(name)
            slot["id"] = call_id
            out.append(
                DeltaToolCall(index=idx, id=call_id, type="function", name=name, arguments="")
            )

    # -- streaming ----------------------------------------------------------------

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> DeltaMessage | None:
        if "mode" not in state:
            state.update(self.initial_state())
        self.decoding.check(state["held"], delta_text, delta_ids)
        return self._to_delta(state, self._feed(state, delta_text))

    def finish(self, state: JSONState) -> DeltaMessage | None:
        if "mode" not in state:
            return None
        events = self._finish_events(state)
        if events or state["deferred"]:
            return self._to_delta(state, events, finished=True)
        return None

    # -- one-shot -----------------------------------------------------------------

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        st = self.initial_state()
        slots: list[dict[str, Any]] = st["slots"]
        arg_parts: dict[int, list[str]] = {}
        events = self._feed(st, text) + self._finish_events(st)
        for kind, value, idx in events:
            if kind == CALL_ARGS and not self.suppress:
                arg_parts.setdefault(idx, []).append(value)
        delta = self._to_delta(st, events, finished=True)
        calls: list[ToolCall] = []
        for idx, slot in enumerate(slots):
            body = "".join(arg_parts.get(idx, ()))
            if not slot["name"] and (not body or slot.get("bare") is not None):
                continue
            name: Any = slot["name"].strip()
            if not name and body.strip():
                name, arguments = name_and_arguments(body)
            elif body.strip():
                arguments = body.strip()
            else:
                arguments = "{}"
            if not name or not isinstance(name, str):
                continue
            calls.append(
                ToolCall(
                    name=name,
                    arguments=coerce_arguments(arguments, self.ctx.tool_named(name)),
                    id=slot["id"] or None,
                )
            )
        content = delta.content if delta else None
        if content and calls and not content.strip():
            content = None
        return ExtractedToolCalls(bool(calls), calls, content)
