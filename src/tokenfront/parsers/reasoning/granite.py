"""granite: "Here is my thought process: ... Here is my response: ..." (IBM Granite 3.x).

The markers are ordinary text. One-shot parsing is a regex; streaming follows vLLM's parser,
which re-reads the whole text each chunk. Its decisions only depend on the first characters
(is the output a thought-process prefix?), on the last ~24 characters of the reasoning (a
partial response marker) and on a few offsets, so the state keeps just those.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tokenfront.parsers.base import DeltaMessage, JSONState, ReasoningParser
from tokenfront.parsers.registry import reasoning_parser

THINK_STARTS = ("Here's my thought process:", "Here is my thought process:")
RESPONSE_STARTS = ("Here's my response:", "Here is my response:")
HEAD = max(len(s) for s in THINK_STARTS) + 1
WINDOW = 24


def _first(text: str, markers: tuple[str, ...], pos: int) -> tuple[int, int]:
    """(start, end) of the earliest of `markers` at or after `pos`, or (-1, -1)."""
    found = [(at, at + len(m)) for m in markers if (at := text.find(m, pos)) != -1]
    return min(found) if found else (-1, -1)


def _think_prefix(text: str) -> bool:
    return any(start.startswith(text) for start in THINK_STARTS)


def _response_prefix(text: str) -> bool:
    return any(start.startswith(text) for start in RESPONSE_STARTS)


@reasoning_parser("granite")
class GraniteReasoningParser(ReasoningParser):
    def is_reasoning_end(self, token_ids: Sequence[int]) -> bool | None:  # type: ignore[override]
        # vLLM's granite parser leaves this abstract method empty: None, never "ended".
        return None

    def extract_content_ids(self, token_ids: Sequence[int]) -> list[int]:
        return []

    def extract_reasoning(self, text: str) -> tuple[str | None, str | None]:
        # vLLM's `(?:Here's|Here is) my thought process:(.*?)(?:Here's|Here is) my
        # response:(.*)` (DOTALL), read with `find`: the pattern reads on to the end from
        # every thought marker that no response marker follows
        think_start, think_end = _first(text, THINK_STARTS, 0)
        if think_start == -1:
            return None, text
        response_start, response_end = _first(text, RESPONSE_STARTS, think_end)
        if response_start == -1:
            return None, text
        return text[think_end:response_start], text[response_end:] or None

    def initial_state(self, prompt_token_ids: Sequence[int] | None) -> JSONState:
        # n: text length; head: first chars; win: last chars; rs: reasoning start offset;
        # resp: [reasoning end, marker length, content start] once the response marker is seen.
        return {"n": 0, "head": "", "win": "", "rs": None, "resp": None}

    @staticmethod
    def _sections(st: JSONState, delta: str) -> None:
        """Advance the offsets the way vLLM's `_get_content_sections` reads the text."""
        start_n = st["n"]
        if st["rs"] is None and len(st["head"]) < HEAD:
            text = (st["head"] + delta)[:HEAD]
            for marker in THINK_STARTS:
                if text.startswith(marker):
                    st["rs"] = len(marker)
                    break
        if st["rs"] is None or st["resp"] is not None:
            return
        tail = st["win"] + delta
        tail_offset = start_n - len(st["win"])
        for i in range(len(st["win"]), len(tail)):
            if tail[i] != ":":
                continue
            d = tail_offset + i
            for marker in RESPONSE_STARTS:
                body = marker[:-1]
                if i >= len(body) and d - len(body) >= st["rs"] and tail[i - len(body) : i] == body:
                    st["resp"] = [d - len(marker), len(marker), d + 1]
                    return

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> tuple[DeltaMessage | None, bool]:
        merged: DeltaMessage | None = None
        for piece in _pieces(state, delta_text):
            merged = _merge(merged, self._step(state, piece))
        return merged, False

    def _step(self, state: JSONState, delta_text: str) -> DeltaMessage | None:
        """vLLM's per-delta reading of one piece of a chunk."""
        st = state
        prev_n = st["n"]
        prev_head = st["head"]
        prev_win = st["win"]
        prev_rs_len = None if st["rs"] is None else max(prev_n - st["rs"], 0)
        self._sections(st, delta_text)
        n = prev_n + len(delta_text)
        st["n"] = n
        st["head"] = (prev_head + delta_text)[:HEAD]
        st["win"] = (prev_win + delta_text)[-WINDOW:]

        rs, resp = st["rs"], st["resp"]
        reasoning_len = 0
        content_len = 0
        if rs is not None:
            if resp is None:
                reasoning_len = max(n - rs, 0)
            else:
                reasoning_len = max(resp[0] - rs, 0)
                content_len = max(n - resp[2], 0)

        delta: DeltaMessage
        if not reasoning_len:
            delta = self._no_reasoning(prev_head, prev_n, delta_text, n)
        elif not content_len:
            delta = self._no_response(st, prev_win, prev_rs_len, delta_text, reasoning_len)
        else:
            assert resp is not None
            delta = self._both(delta_text, reasoning_len, content_len, n, resp[1])
        if not delta.content and not delta.reasoning:
            return None
        return delta

    @staticmethod
    def _no_reasoning(prev_head: str, prev_n: int, delta: str, n: int) -> DeltaMessage:
        current_prefix = _think_prefix(prev_head + delta) if n <= HEAD else False
        was_prefix = _think_prefix(prev_head) if prev_n <= HEAD else False
        if was_prefix and not current_prefix:
            return DeltaMessage(content=prev_head[:prev_n] + delta)
        if current_prefix:
            return DeltaMessage()
        return DeltaMessage(content=delta)

    @staticmethod
    def _no_response(
        st: JSONState, prev_win: str, prev_rs_len: int | None, delta: str, reasoning_len: int
    ) -> DeltaMessage:
        if any(st["win"].endswith(marker) for marker in RESPONSE_STARTS):
            return DeltaMessage()
        if not delta or len(delta) > reasoning_len:
            previous = ""
        else:
            # The previous reasoning's tail (never reaching before the reasoning start).
            keep = min(len(prev_win), prev_rs_len or 0, reasoning_len - len(delta))
            previous = prev_win[len(prev_win) - keep :] if keep else ""
        current = previous + delta
        prev_idx = previous.rfind("Here")
        delta_idx = delta.rfind("Here")
        prev_was = _response_prefix(previous[prev_idx:]) if prev_idx >= 0 else False
        continues = _response_prefix(current[prev_idx:]) if prev_idx >= 0 else False
        new = _response_prefix(delta[delta_idx:]) if delta_idx >= 0 else False
        if continues:
            return DeltaMessage()
        if not prev_was:
            return DeltaMessage(reasoning=delta[:delta_idx] if new else delta)
        if new:
            return DeltaMessage(reasoning=previous[prev_idx:] + delta[:delta_idx])
        return DeltaMessage(reasoning=previous[prev_idx:] + delta)

    @staticmethod
    def _both(delta: str, reasoning_len: int, content_len: int, n: int, seq: int) -> DeltaMessage:
        content = delta[-content_len:]
        end = len(delta) - (content_len + seq)
        reasoning: Any = None
        if end >= 0:
            start = reasoning_len + seq + content_len - 1 - (n - len(delta))
            reasoning = delta[max(start, 0) : end]
        return DeltaMessage(reasoning=reasoning, content=content)


def _pieces(state: JSONState, text: str) -> list[str]:
    """`text` cut where vLLM's per-delta reading needs a delta boundary.

    vLLM reads a delta as if it held at most one section boundary: a chunk that completes the
    thought-process marker and goes on puts the marker in the reasoning, one that holds the end
    of the reasoning and the response marker drops that reasoning, and only the last `Here` of
    a delta is checked as a possible response marker. So a chunk is cut at the reasoning start,
    at every `Here` in the reasoning, around the response marker's `Here` and after the marker.
    """
    probe = dict(state)
    GraniteReasoningParser._sections(probe, text)
    base, rs, resp = state["n"], probe["rs"], probe["resp"]
    cuts: set[int] = set()
    stop = len(text)
    if rs is not None and state["rs"] is None:
        cuts.add(rs - base)
    if resp is not None and state["resp"] is None and resp[0] > rs:
        # (an empty or one-character reasoning is vLLM's "no reasoning" reading: left whole)
        marker_at = resp[0] + 1 - base
        cuts |= {marker_at, marker_at + len("Here"), resp[2] - base}
        stop = marker_at
    if rs is not None:
        at = text.find("Here", max(rs - base, 0))
        while 0 <= at < stop:
            cuts.add(at)
            at = text.find("Here", at + 1)
    bounds = [0, *sorted(c for c in cuts if 0 < c < len(text)), len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)] or [text]


def _merge(merged: DeltaMessage | None, delta: DeltaMessage | None) -> DeltaMessage | None:
    if merged is None or delta is None:
        return merged or delta
    if delta.reasoning is not None:
        merged.reasoning = (merged.reasoning or "") + delta.reasoning
    if delta.content is not None:
        merged.content = (merged.content or "") + delta.content
    return merged
