"""DeepSeek-style tool calls: a section marker opens the calls, each one
`<call begin> HEADER <sep> BODY <call end>`.

`MarkerRegexToolParser` (DeepSeek V3 / V3.1) reads the calls one-shot as the spec's regexes do
(`separated_scan`, linear time); streaming counts the call markers by token id and diffs the
argument text. Specs in `parsers/tools/` give the markers, regexes and call formats; Kimi K2's
section format is `section_calls`.
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
from tokenfront.parsers.engines.chunk_pieces import Piece, split_at_markers, stream_by_token
from tokenfront.parsers.engines.separated_scan import (
    CallFormat,
    read_name,
    read_partial,
    scan_calls,
)
from tokenfront.tokenization.vocab import vocab_of


def _before_first(text: str, marker: str) -> str:
    """`text.split(marker)[0]`, without splitting the whole text."""
    at = text.find(marker)
    return text if at == -1 else text[:at]


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
    # A call-end marker with no call open (a stray one) is not counted, so the calls after it
    # stream as one-shot reads them (vLLM 0.33.0's counts read them as text from there).
    stray_call_end_ignored: ClassVar[bool] = False

    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        super().__init__(tokenizer, ctx)
        vocab = vocab_of(tokenizer)
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
        # A call begins: the held text goes out as 0.33.0 sent it (markers removed: a call-end
        # marker there closes no call).
        state["held"] = None
        text = held
        for marker in (self.calls_begin, self.calls_end, self.call_end):
            text = text.replace(marker, "")
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
        if self.stray_call_end_ignored:
            cur_ends = self._matched_ends(prev_starts, prev_ends, delta_ids)
        else:
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

    def _matched_ends(self, starts: int, ends: int, delta_ids: Sequence[int]) -> int:
        """The call-end count after `delta_ids`, counting only ends that close an open call."""
        for token in delta_ids:
            if token == self.call_begin_id:
                starts += 1
            elif token == self.call_end_id and starts > ends:
                ends += 1
        return ends

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
