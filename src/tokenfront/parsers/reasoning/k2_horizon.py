"""k2_horizon: `<ifm|think>...</ifm|think>` by reasoning effort, `<ifm|tool_calls>` ends it too.

`reasoning_effort` in chat_template_kwargs picks the marker pair (high: `<ifm|think>`,
medium: `<ifm|think_fast>`, low: `<ifm|think_faster>`). Output without an end marker or a
tool-calls opener is all content (one-shot); a generated start marker is dropped. Streaming
buffers text that may grow into the end marker or the tool opener and, once either is seen,
passes everything on as content.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tokenfront.parsers.base import DeltaMessage, JSONState, ParseContext, ReasoningParser
from tokenfront.parsers.engines.json_in_markers import partial_tag_overlap
from tokenfront.parsers.registry import reasoning_parser

TOOL_CALLS_START = "<ifm|tool_calls>"
EFFORT_MARKERS: dict[str, tuple[str, str]] = {
    "high": ("<ifm|think>", "</ifm|think>"),
    "medium": ("<ifm|think_fast>", "</ifm|think_fast>"),
    "low": ("<ifm|think_faster>", "</ifm|think_faster>"),
}


@reasoning_parser("k2_horizon")
class K2HorizonReasoningParser(ReasoningParser):
    @classmethod
    def kwargs_error(cls, chat_template_kwargs: dict[str, Any]) -> str | None:
        effort = chat_template_kwargs.get("reasoning_effort", "high")
        if not isinstance(effort, str) or effort not in EFFORT_MARKERS:
            return f"Unsupported reasoning_effort {effort!r}. Supported values: {', '.join(EFFORT_MARKERS)}."
        return None

    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        super().__init__(tokenizer, ctx)  # (refuses an unknown effort: kwargs_error)
        self.start, self.end = EFFORT_MARKERS[(ctx.chat_template_kwargs or {}).get("reasoning_effort", "high")]
        start_id, end_id = self.vocab_id(self.start), self.vocab_id(self.end)
        if start_id is None or end_id is None:
            raise ValueError(
                "K2HorizonReasoningParser reasoning parser could not locate think start/end "
                "tokens in the tokenizer!"
            )
        self.start_id, self.end_id = start_id, end_id
        self.tools_id = self.vocab_id(TOOL_CALLS_START)

    def is_reasoning_end(self, token_ids: Sequence[int]) -> bool:
        for tid in reversed(token_ids):
            if tid == self.start_id:
                return False
            if tid in (self.end_id, self.tools_id):
                return True
        return False

    def extract_content_ids(self, token_ids: Sequence[int]) -> list[int]:
        ids = list(token_ids)
        if self.end_id in ids:
            return ids[ids.index(self.end_id) + 1 :]
        if self.tools_id is not None and self.tools_id in ids:
            return ids[ids.index(self.tools_id) :]
        return []

    def extract_reasoning(self, text: str) -> tuple[str | None, str | None]:
        output = text.removeprefix(self.start)
        if self.end in output:
            reasoning, _, content = output.partition(self.end)
            return reasoning, content or None
        at = output.find(TOOL_CALLS_START)
        if at != -1:
            return output[:at], output[at:]
        return "", output or None

    def initial_state(self, prompt_token_ids: Sequence[int] | None) -> JSONState:
        return {"buf": "", "at_start": True, "done": False}

    def _strip_start(self, state: JSONState) -> bool:
        if not state["at_start"]:
            return True
        buf = state["buf"]
        if self.start.startswith(buf):
            if buf != self.start:
                return False
            state["buf"] = ""
        elif buf.startswith(self.start):
            state["buf"] = buf[len(self.start) :]
        state["at_start"] = False
        return True

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> tuple[DeltaMessage | None, bool]:
        delta = self._delta(state, delta_text)
        return delta, state["done"] or self.end_id in delta_ids

    def _delta(self, state: JSONState, delta_text: str) -> DeltaMessage | None:
        if state["done"]:
            return DeltaMessage(content=delta_text) if delta_text else None
        state["buf"] += delta_text
        if not self._strip_start(state):
            return None
        buf = state["buf"]
        end_at, tool_at = buf.find(self.end), buf.find(TOOL_CALLS_START)
        if end_at != -1:
            reasoning, content = buf[:end_at], buf[end_at + len(self.end) :]
        elif tool_at != -1:
            reasoning, content = buf[:tool_at], buf[tool_at:]
        else:
            hold = max(partial_tag_overlap(buf, self.end), partial_tag_overlap(buf, TOOL_CALLS_START))
            reasoning, state["buf"] = buf[: len(buf) - hold], buf[len(buf) - hold :]
            return DeltaMessage(reasoning=reasoning) if reasoning else None
        state["buf"] = ""
        state["done"] = True
        return DeltaMessage(reasoning=reasoning, content=content or None)
