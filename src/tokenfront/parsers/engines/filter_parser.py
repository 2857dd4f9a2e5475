"""A whole-output parser over the mode filter (vLLM's `CohereCommandParser` contract).

Unlike the reasoning-then-tools split, one filter reads the whole output into reasoning,
content and tool calls. Parser classes name a subclass of `ModeFilterOutput` as their
`whole_output`; the pipeline builds one per request (`parsers/pipeline.py`). Reasoning is
reported even when only the tool parser is configured (the filter always splits it off);
tool calls only when the pipeline asks for them (a tool parser and a tool_choice other than
"none"). Streaming keeps the filter in the state and flushes it on the last chunk; a call's
id is held back until its name is sent, and the calls of the last chunk and of the flush go
out as separate entries. Streamed deltas carry the chunk's citations (one-shot messages do not,
as in vLLM's OpenAI endpoints).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from tokenfront.parsers.base import DeltaMessage, DeltaToolCall, JSONState, ParseContext, ToolCall
from tokenfront.parsers.engines.cited_text import Batch
from tokenfront.parsers.engines.mode_filter import (
    ModeFilterSpec,
    flush,
    new_state,
    run_whole,
    write,
)


def _join(parts: Iterable[str | None]) -> str | None:
    present = [p for p in parts if p is not None]
    return "".join(present) if present else None


class ModeFilterOutput:
    """One request's filter parser: `parse` (one-shot) and `stream` (per chunk)."""

    spec: ClassVar[ModeFilterSpec]

    def __init__(
        self,
        tokenizer: Any,
        ctx: ParseContext,
        *,
        parse_reasoning: bool = True,
        parse_tools: bool = False,
        id_type: str = "random",
    ) -> None:
        self.tokenizer = tokenizer
        self.ctx = ctx
        self.parse_tools = parse_tools

    def parse(self, text: str) -> tuple[str | None, str | None, list[ToolCall] | None]:
        batch = run_whole(self.spec, text)
        calls: list[ToolCall] | None = None
        if self.parse_tools:
            calls = [
                ToolCall(name=piece["name"], arguments=piece["args"], id=piece["id"] or None)
                for _, piece in batch.call_list()
            ] or None
        return batch.reasoning, batch.content, calls

    def stream(self, state: JSONState | None, text: str, finished: bool) -> tuple[DeltaMessage | None, JSONState]:
        if state is None:
            state = {"f": new_state(self.spec), "ids": {}}
        batches = [write(self.spec, state["f"], text)]
        if finished:
            batches.append(flush(self.spec, state["f"]))
        content = _join(b.content for b in batches)
        reasoning = _join(b.reasoning for b in batches) if self.ctx.include_reasoning else None
        calls: list[DeltaToolCall] = []
        if self.parse_tools:
            for batch in batches:
                calls += _call_deltas(state["ids"], batch)
        citations = [_citation(c) for b in batches for c in b.citations]
        if not (content or reasoning or calls or citations):
            return None, state
        delta = DeltaMessage(content=content, reasoning=reasoning, tool_calls=calls, citations=citations)
        return delta, state


def _citation(found: dict[str, Any]) -> dict[str, Any]:
    """vLLM's streamed `Citation`: sources resolve only through Cohere's own chat endpoint."""
    return {
        "start": found["start"],
        "end": found["end"],
        "text": found["text"],
        "sources": [],
        "content_index": None,
        "type": "THINKING_CONTENT" if found["thinking"] else "TEXT_CONTENT",
    }


def _call_deltas(pending: dict[str, str], batch: Batch) -> list[DeltaToolCall]:
    deltas: list[DeltaToolCall] = []
    for index, piece in batch.call_list():
        if piece["id"]:
            pending[str(index)] = piece["id"]
        name = piece["name"] or None
        args = piece["args"] or None
        if name is None and args is None:
            continue
        delta = DeltaToolCall(index=index, name=name, arguments=args)
        if name is not None:
            delta.id = piece["id"] or pending.pop(str(index), None)
            delta.type = "function"
        deltas.append(delta)
    return deltas


def filter_output(spec: ModeFilterSpec, name: str) -> type[ModeFilterOutput]:
    """A `ModeFilterOutput` class bound to `spec` (one per parser family)."""
    return type(name, (ModeFilterOutput,), {"spec": spec})
