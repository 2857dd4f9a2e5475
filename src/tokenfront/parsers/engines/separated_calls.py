"""Separator-based tool-call formats: begin/end markers around `name <sep> arguments`.

Two families live here:

* `MarkerRegexToolParser` (DeepSeek V3 / V3.1): a section marker opens the calls, each
  call is `<call begin> HEADER <sep> BODY <call end>`; one-shot extraction reads the calls
  as the spec's regex does (`separated_scan`, linear time), streaming counts the call markers
  by token id and diffs the argument text.
* `SectionToolParser` (Kimi K2): a small state machine over marker terminals; the call
  header carries the call id (`functions.NAME:IDX`), the arguments are raw JSON streamed
  with the top-level closing brace held back until the call ends.

Specs in `parsers/tools/` give the markers, regexes and call formats.
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
    merge_tool_deltas,
)
from tokenfront.parsers.engines.chunk_pieces import Piece, split_at_markers, stream_by_token
from tokenfront.parsers.engines.content_whitespace import settle_content
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
from tokenfront.parsers.engines.schema_types import coerce_object
from tokenfront.parsers.engines.separated_scan import (
    CallFormat,
    read_name,
    read_partial,
    scan_calls,
)
from tokenfront.tokenization.vocab import vocab_of

cached_vocab = vocab_of


def _before_first(text: str, marker: str) -> str:
    """`text.split(marker)[0]`, without splitting the whole text."""
    at = text.find(marker)
    return text if at == -1 else text[:at]


# ---------------------------------------------------------------------------
# DeepSeek-style: regex one-shot, token-count streaming
# ---------------------------------------------------------------------------


class MarkerRegexToolParser(ToolParser):
    """Spec fields: markers, vLLM's three regexes (the contract) and `call_format`, which
    reads what they match without their backtracking (`separated_scan`).

    `call_regex` groups: `name`, `arguments` and optionally `type` (a call whose type is
    not "function" makes the whole output plain content). `portion_regex` matches a
    call's text seen so far once arguments started; `name_regex` once only the name is
    known (both `.match` at the start, groups `name` / `arguments`).
    """

    calls_begin: ClassVar[str] = "<｜tool▁calls▁begin｜>"
    calls_end: ClassVar[str] = "<｜tool▁calls▁end｜>"
    call_begin: ClassVar[str] = "<｜tool▁call▁begin｜>"
    call_end: ClassVar[str] = "<｜tool▁call▁end｜>"
    call_regex: ClassVar[re.Pattern[str]]
    portion_regex: ClassVar[re.Pattern[str]]
    name_regex: ClassVar[re.Pattern[str]]
    call_format: ClassVar[CallFormat]
    # Whether text after the calls-end marker is kept as content (V3) or dropped (V3.1).
    content_after_calls: ClassVar[bool] = True
    model_label: ClassVar[str] = "DeepSeek-V3"
    # A character every marker holds (at its second and second-to-last place only).
    marker_char: ClassVar[str] = "｜"
    # A calls section in which no call begins is content, markers included: streaming holds
    # the section from its begin marker until a call begins or the stream ends.
    unparsable_block_is_content: ClassVar[bool] = False

    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        super().__init__(tokenizer, ctx)
        vocab = cached_vocab(tokenizer)
        self.calls_begin_id = vocab.get(self.calls_begin)
        self.calls_end_id = vocab.get(self.calls_end)
        self.call_begin_id = vocab.get(self.call_begin)
        self.call_end_id = vocab.get(self.call_end)
        if self.calls_begin_id is None or self.calls_end_id is None:
            raise RuntimeError(
                f"{self.model_label} Tool parser could not locate tool call start/end "
                "tokens in the tokenizer!"
            )

    # -- one-shot ---------------------------------------------------------------

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        start = text.find(self.calls_begin)
        if start == -1:
            return ExtractedToolCalls(False, [], text)
        calls: list[ToolCall] = []
        for call in scan_calls(text, self.call_format):
            if call.type not in (None, "function"):
                return ExtractedToolCalls(False, [], text)
            calls.append(ToolCall(name=call.name, arguments=call.arguments))
        content = text[:start]
        if self.content_after_calls:
            end = text.rfind(self.calls_end)
            if end != -1:
                content += text[end + len(self.calls_end) :]
        return ExtractedToolCalls(True, calls, content or None)

    # -- streaming --------------------------------------------------------------

    def initial_state(self) -> JSONState:
        # text: tool-phase text so far; begun: calls-begin id seen; starts/ends: call
        # marker id counts so far; cur: current call index; named: its name was sent;
        # prev: last parsed {name, arguments} per call; sent: argument text emitted.
        return {
            "text": "",
            "begun": False,
            "starts": 0,
            "ends": 0,
            "cur": -1,
            "named": False,
            "prev": [],
            "sent": [],
        }

    def remaining_args(self, state: JSONState) -> str:
        """vLLM's `get_remaining_unstreamed_args`: the last call's parsed-but-unsent arguments."""
        prev: list[dict[str, Any]] = state.get("prev") or []
        if not prev:
            return ""
        last = len(prev) - 1
        expected = prev[last].get("arguments", {})
        if not isinstance(expected, str):
            expected = json.dumps(expected, ensure_ascii=False)
        sent = state["sent"][last] if last < len(state["sent"]) else ""
        return expected[len(sent) :] if expected.startswith(sent) else ""

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> DeltaMessage | None:
        if "text" not in state:
            state.update(self.initial_state())
        if not self.unparsable_block_is_content:
            return self._stream(state, delta_text, delta_ids)
        was_begun, held = state["begun"], state.get("held")
        delta = self._stream(state, delta_text, delta_ids)
        if held is None:
            at = delta_text.find(self.calls_begin)
            if was_begun or not state["begun"] or state["starts"] or at == -1:
                return delta
            # The section opens here: what follows the marker waits (vLLM 0.33.0 streams it
            # with the markers removed).
            state["held"] = delta_text[at:]
            return DeltaMessage(content=delta_text[:at])
        if not state["starts"]:
            state["held"] = held + delta_text
            return DeltaMessage(content="") if delta is not None else None
        # A call begins: the held text goes out as 0.33.0 sent it (markers removed).
        state["held"] = None
        text = held.replace(self.calls_begin, "").replace(self.calls_end, "")
        if not text:
            return delta
        if delta is None:
            return DeltaMessage(content=text)
        delta.content = text + (delta.content or "")
        return delta

    def finish(self, state: JSONState) -> DeltaMessage | None:
        held = state.get("held")
        if held:
            # The stream ended without a call: the held section is content as it was written.
            state["held"] = None
            return DeltaMessage(content=held)
        return None

    def _stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> DeltaMessage | None:
        markers = {
            token: text
            for token, text in (
                (self.calls_begin_id, self.calls_begin),
                (self.calls_end_id, self.calls_end),
                (self.call_begin_id, self.call_begin),
                (self.call_end_id, self.call_end),
            )
            if token is not None
        }
        # vLLM's per-delta logic loses text around a marker inside a multi-token chunk: the
        # chunk is read marker by marker (vLLM's whole-chunk answer stays where it agrees).
        pieces = split_at_markers(delta_text, delta_ids, markers)
        delta = stream_by_token(
            self._stream_piece, state, pieces, delta_text, delta_ids, self._feed_pieces
        )
        self._kept(state)
        state.pop("later", None)
        return delta

    def _feed_pieces(self, state: JSONState, pieces: Sequence[Piece]) -> list[DeltaMessage | None]:
        """The pieces through `_stream_piece` one by one, except that a run of pieces that
        only extend the open call's arguments goes in as one piece once the run's first piece
        has shown the call is streaming them: fed one by one each such piece costs a read of
        the whole call, and a chunk may hold thousands of section markers."""
        # run_end[i]: the end of the run of such pieces from i on (i itself if none)
        run_end = list(range(len(pieces) + 1))
        for i in range(len(pieces) - 1, -1, -1):
            if self._extends_arguments_only(pieces[i]):
                run_end[i] = run_end[i + 1]
        out: list[DeltaMessage | None] = []
        at, checks = 0, 0
        while at < len(pieces):
            out.append(self._stream_piece(state, *pieces[at]))
            at += 1
            end = run_end[at]
            checks = checks + 1 if end == run_end[at - 1] else 0
            # Two looks per run at most: the call's state is read from its whole text.
            if end - at > 1 and checks < 2 and self._streaming_arguments(state):
                text = "".join(piece_text for piece_text, _ in pieces[at:end])
                ids = [token for _, piece_ids in pieces[at:end] for token in piece_ids]
                out.append(self._stream_piece(state, text, ids))
                at = end
        return out

    def _extends_arguments_only(self, piece: Piece) -> bool:
        """Whether a piece inside an open call can only add to its arguments text: a section
        marker, or text without the character every marker is written with (so no call
        marker or separator can be in it, nor be formed by joining it to its neighbours)."""
        text, ids = piece
        if len(ids) == 1 and ids[0] in (self.calls_begin_id, self.calls_end_id):
            return True
        return self.marker_char not in text

    def _streaming_arguments(self, state: JSONState) -> bool:
        """Whether the open call's name is sent and its arguments sent so far are all the
        text read: then more text the call's header cannot take only extends them."""
        if not (state["begun"] and state["named"] and state["starts"] > state["ends"]):
            return False
        cur, prev = state["cur"], state["prev"]
        if not 0 <= cur < len(prev):
            return False
        read = read_partial(self._call_body(state), self.call_format)
        return read is not None and prev[cur].get("arguments") == read[1]

    # The kept text is `state["text"]` followed by the pieces in `state["later"]`, joined only
    # when a reading needs the whole (a chunk's pieces after a closed call need none).

    def _kept(self, state: JSONState) -> str:
        """The kept text, whole."""
        later = state.get("later")
        if later:
            state["text"] += "".join(later)
            later.clear()
        return str(state["text"])

    def _kept_tail(self, state: JSONState) -> str:
        """The kept text's last characters, one fewer than a call-begin marker has."""
        size = len(self.call_begin) - 1
        parts: list[str] = []
        found = 0
        for part in reversed(state.get("later") or ()):  # no empty parts: `_keep` skips them
            parts.append(part)
            found += len(part)
            if found >= size:
                break
        else:
            parts.append(state["text"][-size:])
        return "".join(reversed(parts))[-size:]

    def _keep(self, state: JSONState, delta_text: str) -> None:
        """Add a delta to the kept text. Only the text from the last call-begin marker on is
        ever looked at again, so the kept text holds one at most at its start (whole in
        `state["text"]`)."""
        joint = self._kept_tail(state) + delta_text
        at = joint.rfind(self.call_begin)
        if at != -1:
            state["text"], state["later"] = joint[at:], []
        elif delta_text:
            state.setdefault("later", []).append(delta_text)

    def _body_offset(self, state: JSONState) -> int:
        # a call-begin marker the kept text starts with is whole in `state["text"]`
        return len(self.call_begin) if state["text"].startswith(self.call_begin) else 0

    def _call_body(self, state: JSONState) -> str:
        """The kept text after its call-begin marker (vLLM's last split at the marker)."""
        return self._kept(state)[self._body_offset(state) :]

    def _call_text(self, state: JSONState, extra: str = "") -> str:
        """The kept text's call body followed by `extra`, up to its first call-end marker."""
        start = self._body_offset(state)
        end = state["text"].find(self.call_end, start)
        if end != -1:
            return str(state["text"][start:end])
        return _before_first(self._kept(state)[start:] + extra, self.call_end)

    def _stream_piece(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> DeltaMessage | None:
        self._keep(state, delta_text)
        prev_starts, prev_ends = state["starts"], state["ends"]
        cur_starts = prev_starts + sum(1 for i in delta_ids if i == self.call_begin_id)
        cur_ends = prev_ends + sum(1 for i in delta_ids if i == self.call_end_id)
        state["starts"], state["ends"] = cur_starts, cur_ends
        if not state["begun"] and self.calls_begin_id in delta_ids:
            state["begun"] = True
        if not state["begun"]:
            return DeltaMessage(content=delta_text)

        delta_text = delta_text.replace(self.calls_begin, "").replace(self.calls_end, "")
        try:
            return self._stream_calls(
                state,
                delta_text,
                len(delta_ids),
                (prev_starts, prev_ends, cur_starts, cur_ends),
            )
        except Exception:
            return None

    def _unsent_at_call_end(self, state: JSONState) -> str:
        """The closed call's arguments not streamed yet (vLLM only sends a tail ending in
        `"}` there, so a chunk holding the last arguments and the call end lost them)."""
        read = read_partial(self._call_text(state), self.call_format)
        if read is None:
            return ""
        cur = state["cur"]
        full, sent = read[1], state["sent"][cur]
        if len(full) <= len(sent) or not full.startswith(sent):
            return ""
        state["sent"][cur] = full
        prev: list[dict[str, Any]] = state["prev"]
        while len(prev) <= cur:
            prev.append({})
        prev[cur] = {"name": read[0], "arguments": full}
        return full[len(sent) :]

    def _stream_calls(
        self,
        state: JSONState,
        delta_text: str,
        n_ids: int,
        counts: tuple[int, int, int, int],
    ) -> DeltaMessage | None:
        """vLLM's per-delta reading; the kept text is the text so far from the last
        call-begin marker on (what vLLM splits at that marker is the same)."""
        prev_starts, prev_ends, cur_starts, cur_ends = counts
        portion: str | None = None
        text_portion: str | None = None

        if cur_starts == cur_ends and prev_ends == cur_ends and self.call_end not in delta_text:
            if cur_ends and delta_text and not self.content_after_calls:
                # Text after a closed call is no content one-shot (only the text before the
                # calls section is); it is not streamed either.
                return None
            return DeltaMessage(content=delta_text)

        if self.call_end in delta_text:
            # the kept text (which ends in this delta already) and the delta once more
            joint = self._kept_tail(state) + delta_text
            at = joint.rfind(self.call_begin)
            if at != -1:
                portion = _before_first(joint[at + len(self.call_begin) :], self.call_end)
            else:
                portion = self._call_text(state, delta_text)
            portion = portion.rstrip()
            delta_text = delta_text.split(self.call_end)[0].rstrip()
            text_portion = delta_text.split(self.call_end)[-1].lstrip()

        if cur_starts > cur_ends and cur_starts > prev_starts:
            portion = self._call_body(state) if n_ids > 1 else None
            text_portion = None
            state["cur"] += 1
            state["named"] = False
            state["sent"].append("")
        elif cur_starts > cur_ends and cur_starts == prev_starts:
            portion = self._call_body(state)
            text_portion = None
        elif cur_starts == cur_ends and cur_ends >= prev_ends:
            if cur_ends > prev_ends and state["named"]:
                rest = self._unsent_at_call_end(state)
                if rest:
                    return DeltaMessage(tool_calls=[DeltaToolCall(index=state["cur"], arguments=rest)])
            if not state["prev"]:
                return None
            cur = state["cur"]
            if state["prev"][cur].get("arguments"):
                if '"}' not in delta_text:
                    return None
                tail = delta_text[: delta_text.rindex('"}')] + '"}'
                state["sent"][cur] += tail
                return DeltaMessage(tool_calls=[DeltaToolCall(index=cur, arguments=tail)])
        else:
            text = delta_text.replace(self.call_begin, "").replace(self.call_end, "")
            return DeltaMessage(content=text)

        call: dict[str, Any] = {}
        if portion:
            read = read_partial(portion, self.call_format)
            if read is not None:
                call = {"name": read[0], "arguments": read[1]}
            else:
                name = read_name(portion, self.call_format)
                if name is None:
                    return None
                call = {"name": name, "arguments": ""}

        cur = state["cur"]
        if not state["named"]:
            name = call.get("name")
            if not name:
                return None
            state["named"] = True
            return DeltaMessage(
                tool_calls=[
                    DeltaToolCall(
                        index=cur, id=self.new_tool_call_id(name), type="function", name=name
                    )
                ]
            )

        if portion is None:
            return DeltaMessage(content=delta_text) if text_portion is not None else None

        prev_calls: list[dict[str, Any]] = state["prev"]
        if len(prev_calls) <= cur:
            prev_calls.append({})
        before = prev_calls[cur].get("arguments")
        now = call.get("arguments")
        delta: DeltaMessage | None = None
        if now and not before:
            delta = DeltaMessage(tool_calls=[DeltaToolCall(index=cur, arguments=now)])
            state["sent"][cur] = now
        elif now and before and len(now) > len(before) and now.startswith(before):
            delta = DeltaMessage(
                tool_calls=[DeltaToolCall(index=cur, arguments=now[len(before) :])]
            )
            state["sent"][cur] = now
        if cur == len(prev_calls) - 1:
            prev_calls[cur] = call
        else:
            prev_calls.append(call)
        return delta


# ---------------------------------------------------------------------------
# Kimi-style: marker state machine
# ---------------------------------------------------------------------------

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
            params = function.get("parameters")
            props = params.get("properties") if isinstance(params, dict) else None
            if isinstance(props, dict) and set(parsed) <= set(props):
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
        deltas = merge_tool_deltas(deltas)
        content = settle_content(
            st,
            parts,
            carried,
            seen_tool=seen_tool,
            has_deltas=bool(deltas),
            has_slots=bool(slots),
            finished=finished,
        )
        if content or deltas:
            return DeltaMessage(content=content or None, tool_calls=deltas)
        return None

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
        params = function.get("parameters") if function else None
        props = params.get("properties") if isinstance(params, dict) else None
        return props if isinstance(props, dict) and props else None

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


# ---------------------------------------------------------------------------
# Schema-driven type coercion of argument values
# ---------------------------------------------------------------------------


def coerce_arguments(arguments: str, function: dict[str, Any] | None) -> str:
    """Arguments JSON with values coerced to the tool's parameter types (unchanged if none apply)."""
    if not function:
        return arguments
    properties = (function.get("parameters") or {}).get("properties") or {}
    if not properties or not isinstance(properties, dict):
        return arguments
    try:
        args = json.loads(arguments)
    except ValueError:
        return arguments
    if not isinstance(args, dict):
        return arguments
    if coerce_object(args, properties):
        return json.dumps(args, ensure_ascii=False)
    return arguments
