"""minimax_m3: `<mm:think>reasoning</mm:think>content`, markers matched as text.

The markers are single vocabulary entries in the M3 tokenizer but generated text may spell
them in smaller pieces, so splitting works on the text (a partial marker at the end of the
text is held back) and the end of reasoning on the markers' token sequences. With
`thinking_mode="enabled"` the template prefills the opener: output starts inside reasoning.
A stray closer at the very start of the output is dropped.

Streaming re-reads the visible split of the whole text like vLLM's parser (the text is kept
in the state); the end-of-reasoning decision needs only flags and a short id tail.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tokenfront.parsers.base import DeltaMessage, JSONState, ParseContext, ReasoningParser
from tokenfront.parsers.registry import reasoning_parser
from tokenfront.tokenization.vocab import token_lookup

START = "<mm:think>"
END = "</mm:think>"


def _find(ids: Sequence[int], marker: Sequence[int], last: bool = False) -> int:
    n = len(marker)
    if not n or n > len(ids):
        return -1
    positions = range(len(ids) - n, -1, -1) if last else range(len(ids) - n + 1)
    for i in positions:
        if tuple(ids[i : i + n]) == tuple(marker):
            return i
    return -1


def _ends_with_prefix(ids: Sequence[int], marker: Sequence[int]) -> bool:
    for k in range(min(len(ids), len(marker) - 1), 0, -1):
        if tuple(ids[-k:]) == tuple(marker[:k]):
            return True
    return False


def _strip_partial(text: str, marker: str) -> str:
    for k in range(min(len(text), len(marker) - 1), 0, -1):
        if marker.startswith(text[-k:]):
            return text[:-k]
    return text


def _visible_delta(previous: str | None, current: str | None) -> str | None:
    if not current:
        return None
    if not previous:
        return current
    if current.startswith(previous):
        return current[len(previous) :] or None
    return current


@reasoning_parser("minimax_m3")
class MiniMaxM3ReasoningParser(ReasoningParser):
    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        super().__init__(tokenizer, ctx)
        vocab = token_lookup(tokenizer)
        if START not in vocab or END not in vocab:
            raise ValueError(
                "MiniMaxM3ReasoningParser reasoning parser could not locate think start/end "
                "tokens in the tokenizer!"
            )
        self.start_ids = self._encode(START)
        self.end_ids = self._encode(END)
        self.prefilled = (ctx.chat_template_kwargs or {}).get("thinking_mode") == "enabled"
        self._last: tuple[tuple[int, ...], list[int]] | None = None

    def _encode(self, text: str) -> list[int]:
        return list(self.tokenizer.encode(text, add_special_tokens=False))

    def _decode(self, ids: Sequence[int]) -> str:
        return str(self.tokenizer.decode(list(ids), skip_special_tokens=False))

    # ---- prompt / one-shot ----------------------------------------------------------------
    def is_reasoning_end(self, token_ids: Sequence[int]) -> bool:
        start = _find(token_ids, self.start_ids, last=True)
        end = _find(token_ids, self.end_ids, last=True)
        if end < 0:
            return False
        return start < 0 or end > start

    def extract_reasoning(self, text: str) -> tuple[str | None, str | None]:
        if not self.prefilled and text.startswith(END):
            return None, text[len(END) :] or None
        if self.prefilled and START not in text:
            reasoning, end, content = text.partition(END)
            if not end:
                return text, None
            return reasoning, content or None
        if START not in text:
            return None, text
        before, _, after = text.partition(START)
        reasoning, end, after_end = after.partition(END)
        if not end:
            return reasoning, before or None
        return reasoning, (before + after_end) or None

    # ---- streaming ------------------------------------------------------------------------
    def _visible(self, text: str) -> tuple[str | None, str | None]:
        if not text:
            return None, None
        if not self.prefilled:
            if END.startswith(text) and len(text) < len(END):
                return None, None
            if text.startswith(END):
                text = text[len(END) :]
                if not text:
                    return None, None
        if self.prefilled and START not in text:
            reasoning, end, content = text.partition(END)
            if end:
                return reasoning or None, content or None
            return _strip_partial(reasoning, END) or None, None
        if START not in text:
            return None, _strip_partial(text, START) or None
        before, _, after = text.partition(START)
        reasoning, end, after_end = after.partition(END)
        if end:
            return reasoning or None, (before + after_end) or None
        return _strip_partial(reasoning, END) or None, before or None

    def initial_state(self, prompt_token_ids: Sequence[int] | None) -> JSONState:
        return {
            "text": "", "ended": False, "active": self.prefilled, "pending": False,
            "seen_end": False, "seen_start": False, "tail": [], "n": 0,
        }  # fmt: skip

    def _content_ids(self, delta_text: str, ids: Sequence[int], content: str | None) -> list[int]:
        if content is None:
            return []
        if content == delta_text:
            return list(ids)
        if delta_text.endswith(content):
            prefix = delta_text[: len(delta_text) - len(content)]
            for i in range(len(ids) + 1):
                if self._decode(ids[:i]) == prefix:
                    return list(ids[i:])
        return self._encode(content)

    def _track_ids(self, st: JSONState, delta_ids: Sequence[int]) -> list[int]:
        """Feed ids to the marker facts; returns the window the sequence checks need."""
        keep = max(len(self.start_ids), len(self.end_ids))
        window = list(st["tail"]) + list(delta_ids)
        if _find(window, self.end_ids) >= 0:
            st["seen_end"] = True
        if _find(window, self.start_ids) >= 0:
            st["seen_start"] = True
        st["tail"] = window[-keep:] if keep else []
        st["n"] += len(delta_ids)
        return window

    def _ended(self, st: JSONState, delta_ids: Sequence[int], window: list[int]) -> bool:
        if st["ended"]:
            return True
        if st["active"] or st["pending"]:
            return False
        if _find(delta_ids, self.end_ids) >= 0 or st["seen_end"]:
            return True
        if self.prefilled:
            return False
        if _ends_with_prefix(window, self.start_ids) or _ends_with_prefix(window, self.end_ids):
            return False
        if not st["seen_start"]:
            return st["n"] > 0
        return False

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> tuple[DeltaMessage | None, bool]:
        st = state
        delta = self._step(st, delta_text, delta_ids)
        window = self._track_ids(st, delta_ids)
        return delta, self._ended(st, delta_ids, window)

    def _step(
        self, st: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> DeltaMessage | None:
        if not delta_text:
            return None
        previous = st["text"]
        current = previous + delta_text
        st["text"] = current
        prev_r, prev_c = self._visible(previous)
        cur_r, cur_c = self._visible(current)
        if END in current or cur_c is not None:
            st["ended"], st["active"], st["pending"] = True, False, False
        else:
            self._last = None
            st["active"] = self.prefilled or START in current or cur_r is not None
            st["pending"] = not st["active"] and (
                START.startswith(current) or END.startswith(current)
            )
        reasoning = _visible_delta(prev_r, cur_r)
        content = _visible_delta(prev_c, cur_c)
        if st["ended"]:
            self._last = (tuple(delta_ids), self._content_ids(delta_text, delta_ids, content))
        if reasoning is None and content is None:
            return None
        return DeltaMessage(reasoning=reasoning, content=content)

    def extract_content_ids(self, token_ids: Sequence[int]) -> list[int]:
        ids = list(token_ids)
        if self._last is not None and self._last[0] == tuple(ids):
            content_ids = self._last[1]
            self._last = None
            return list(content_ids)
        end = _find(ids, self.end_ids, last=True)
        if end >= 0:
            return ids[end + len(self.end_ids) :]
        has_start = _find(ids, self.start_ids) >= 0
        if self.prefilled and not has_start:
            return []
        return [] if has_start else ids
