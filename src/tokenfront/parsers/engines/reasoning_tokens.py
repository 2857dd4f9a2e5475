"""Reasoning split on start/end marker *token ids* (vLLM's token-based reasoning parsers).

These parsers (deepseek_r1, step3, ernie45, ...) decide per streamed chunk from the token ids
of the chunk and of what came before, and split the chunk text at the marker text. Their
streaming state only needs a few facts about earlier ids (was the start / end marker seen,
the last two ids), so it stays bounded.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from tokenfront.parsers.base import DeltaMessage, JSONState, ParseContext, ReasoningParser


class ThinkTokensParser(ReasoningParser):
    """`<think>...</think>` split by token ids (vLLM's BaseThinkingReasoningParser).

    `start_optional` (deepseek_r1): output without a start marker is reasoning until the end
    marker, as R1 templates put `<think>` in the prompt.
    """

    start_token: ClassVar[str] = "<think>"
    end_token: ClassVar[str] = "</think>"
    start_optional: ClassVar[bool] = False
    label: ClassVar[str | None] = None  # the parser's name in vLLM's messages (default: the class)

    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        super().__init__(tokenizer, ctx)
        start_id = self.vocab_id(self.start_token)
        end_id = self.vocab_id(self.end_token)
        if start_id is None or end_id is None:
            raise ValueError(
                f"{self.label or type(self).__name__} reasoning parser could not locate think "
                "start/end tokens in the tokenizer!"
            )
        self.start_id: int = start_id
        self.end_id: int = end_id

    def is_reasoning_end(self, token_ids: Sequence[int]) -> bool:
        for tid in reversed(token_ids):
            if tid == self.start_id:
                return False
            if tid == self.end_id:
                return True
        return False

    def extract_content_ids(self, token_ids: Sequence[int]) -> list[int]:
        ids = list(token_ids)
        if self.end_id not in ids[:-1]:
            return []
        return ids[ids.index(self.end_id) + 1 :]

    def extract_reasoning(self, text: str) -> tuple[str | None, str | None]:
        before, marker, after = text.partition(self.start_token)
        text = after if marker else before
        if self.end_token not in text:
            return text, None
        reasoning, _, content = text.partition(self.end_token)
        return reasoning, content or None

    def initial_state(self, prompt_token_ids: Sequence[int] | None) -> JSONState:
        return {"start": False, "end": False, "prev": []}

    def _split_at_end(self, delta_text: str) -> DeltaMessage:
        at = delta_text.find(self.end_token)
        content = delta_text[at + len(self.end_token) :]
        return DeltaMessage(reasoning=delta_text[:at], content=content or None)

    def _delta(self, state: JSONState, text: str, ids: Sequence[int]) -> DeltaMessage | None:
        if len(ids) == 1 and ids[0] in (self.start_id, self.end_id):
            if ids[0] == self.start_id and state["start"] and not state["end"]:
                # a start marker inside the reasoning is its text (one-shot splits at the
                # first start marker only)
                return DeltaMessage(reasoning=text)
            return None
        end_now = self.end_id in ids
        if self.start_id in ids or ids.count(self.end_id) > 1 or (end_now and state["end"]):
            # vLLM's per-chunk split keeps a start marker in the reasoning and drops the
            # text before it: read the chunk as its tokens one at a time would be read.
            return self._split_markers(state, text, ids)
        if state["start"]:
            if end_now:
                return self._split_at_end(text)
            if state["end"]:
                return DeltaMessage(content=text)
            return DeltaMessage(reasoning=text)
        if self.start_id in ids:
            if end_now:
                s = text.find(self.start_token)
                e = text.find(self.end_token)
                content = text[e + len(self.end_token) :]
                return DeltaMessage(
                    reasoning=text[s + len(self.start_token) : e], content=content or None
                )
            return DeltaMessage(reasoning=text)
        if not self.start_optional:
            return DeltaMessage(content=text)
        if end_now:
            return self._split_at_end(text)
        if state["end"]:
            return DeltaMessage(content=text)
        return DeltaMessage(reasoning=text)

    def _split_markers(
        self, state: JSONState, text: str, ids: Sequence[int]
    ) -> DeltaMessage | None:
        """A chunk holding a start marker, or several markers, split as one token per delta.

        Marker tokens before the reasoning end are dropped, except a start marker after the
        first one (reasoning text, as one-shot reads it); text before the start marker is
        reasoning (`start_optional`) or content; everything after the first end marker is
        content as written (the reasoning parser no longer reads it).
        """
        started = bool(state["start"])
        ended = bool(state["end"])
        budget = {
            self.start_token: ids.count(self.start_id),
            self.end_token: ids.count(self.end_id),
        }
        reasoning: list[str] = []
        content: list[str] = []
        at = 0
        while not ended:
            marker, found = _next_marker(text, at, budget)
            before = text[at:found] if marker else text[at:]
            (reasoning if started or self.start_optional else content).append(before)
            if not marker:
                at = len(text)
                break
            budget[marker] -= 1
            if marker == self.start_token and started:  # nested: text of the reasoning
                reasoning.append(marker)
            at = found + len(marker)
            started = started or marker == self.start_token
            ended = marker == self.end_token
        content.append(text[at:])
        if ended and not state["end"]:  # the reasoning ends here: shaped as vLLM's split
            return DeltaMessage(reasoning="".join(reasoning), content="".join(content) or None)
        r, c = "".join(reasoning), "".join(content)
        if not r and not c:
            return None
        return DeltaMessage(reasoning=r or None, content=c or None)

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> tuple[DeltaMessage | None, bool]:
        delta = self._delta(state, delta_text, delta_ids)
        self._remember(state, delta_ids)
        return delta, self.end_id in delta_ids

    def _remember(self, state: JSONState, delta_ids: Sequence[int]) -> None:
        if self.start_id in delta_ids:
            state["start"] = True
        if self.end_id in delta_ids:
            state["end"] = True
        state["prev"] = (list(state["prev"]) + list(delta_ids))[-2:]


def _next_marker(text: str, at: int, budget: dict[str, int]) -> tuple[str, int]:
    """The earliest marker (with ids left in `budget`) at or after `at`: (marker, offset)."""
    best, best_at = "", len(text)
    for marker, left in budget.items():
        found = text.find(marker, at) if left > 0 else -1
        if 0 <= found < best_at:
            best, best_at = marker, found
    return best, best_at


class EndOnlyParser(ReasoningParser):
    """Everything before the end marker is reasoning (vLLM's step3 parser)."""

    end_token: ClassVar[str] = "</think>"
    label: ClassVar[str] = "Step3"  # the parser's name in vLLM's messages

    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        super().__init__(tokenizer, ctx)
        end_id = self.vocab_id(self.end_token)
        if end_id is None:
            raise ValueError(f"{self.label} reasoning parser could not locate think end token in the tokenizer!")
        self.end_id: int = end_id

    def is_reasoning_end(self, token_ids: Sequence[int]) -> bool:
        return self.end_id in token_ids

    def extract_content_ids(self, token_ids: Sequence[int]) -> list[int]:
        ids = list(token_ids)
        if self.end_id not in ids[:-1]:
            return []
        return ids[ids.index(self.end_id) + 1 :]

    def extract_reasoning(self, text: str) -> tuple[str | None, str | None]:
        if self.end_token not in text:
            return text, None
        at = text.find(self.end_token)
        return text[:at], text[at + len(self.end_token) :] or None

    def initial_state(self, prompt_token_ids: Sequence[int] | None) -> JSONState:
        return {"end": False}

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> tuple[DeltaMessage | None, bool]:
        end_now = self.end_id in delta_ids
        delta: DeltaMessage | None
        if len(delta_ids) == 1 and delta_ids[0] == self.end_id:
            delta = None
        elif end_now:
            at = delta_text.find(self.end_token)
            content = delta_text[at + len(self.end_token) :]
            delta = DeltaMessage(reasoning=delta_text[:at], content=content or None)
        elif state["end"]:
            delta = DeltaMessage(content=delta_text)
        else:
            delta = DeltaMessage(reasoning=delta_text)
        if end_now:
            state["end"] = True
        return delta, end_now


class IdentityParser(ReasoningParser):
    """No reasoning: everything is content."""

    def is_reasoning_end(self, token_ids: Sequence[int]) -> bool:
        return True

    def extract_reasoning(self, text: str) -> tuple[str | None, str | None]:
        return None, text

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> tuple[DeltaMessage | None, bool]:
        return (DeltaMessage(content=delta_text) if delta_text else None), True
