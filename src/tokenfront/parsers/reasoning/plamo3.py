"""plamo3: reasoning until `<|plamo:end_think:plamo|>` (multi-token text markers).

The PLaMo 3 grammar (`tools/plamo3.py`) with tool parsing skipped: output starts in reasoning
unless `enable_thinking` is false; the tool-requests opener and the end-of-turn tag also end
it, and nothing after the end-of-turn tag is output. The prompt decides nothing (its markers are several tokens); a cut-off marker at the end of
the reasoning is dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from tokenfront.parsers.base import DeltaMessage, JSONState, ParseContext
from tokenfront.parsers.engines.json_in_markers import partial_tag_overlap
from tokenfront.parsers.engines.reasoning_grammar import (
    END,
    REASONING,
    START,
    TEXT,
    Grammar,
    GrammarReasoningParser,
    GrammarSpec,
)
from tokenfront.parsers.registry import reasoning_parser
from tokenfront.parsers.tools.plamo3 import (
    EOT,
    S_AFTER_TURN,
    THINK,
    TOOL_MARKERS,
    UnfinishedMarkers,
)

PRE, NAME, ARGS, BETWEEN = "TOOL_PREAMBLE", "TOOL_NAME", "TOOL_ARGS", "TOOL_BETWEEN"
CALL_START, CALL_END = "TOOL_CALL_START", "TOOL_CALL_END"


@cache
def _plamo3(thinking: bool) -> Grammar:
    rows = [
        (TEXT, "TOOL_REQUESTS_START", PRE, ()),
        (PRE, "TOOL_REQUEST_START", PRE, ()),
        (PRE, "TOOL_NAME_START", NAME, (CALL_START,)),
        (NAME, "TOOL_NAME_END", PRE, ()),
        (PRE, "TOOL_ARGS_START", ARGS, ()),
        (ARGS, "TOOL_ARGS_END", BETWEEN, ()),
        (BETWEEN, "TOOL_REQUEST_END", PRE, (CALL_END,)),
        (PRE, "TOOL_REQUESTS_END", TEXT, ()),
        (REASONING, "EOT", S_AFTER_TURN, (END,)),
        *[(s, "EOT", S_AFTER_TURN, ()) for s in (TEXT, PRE, NAME, ARGS, BETWEEN)],
    ]
    if thinking:
        rows += [
            (REASONING, "THINK_START", REASONING, ()),
            (TEXT, "THINK_START", REASONING, (START,)),
            (REASONING, "THINK_END", TEXT, (END,)),
            (TEXT, "THINK_END", TEXT, ()),
            (REASONING, "TOOL_REQUESTS_START", PRE, (END,)),
        ]
    terminals = {**(THINK if thinking else {}), **TOOL_MARKERS}
    return Grammar(
        terminals={k: (v,) for k, v in terminals.items()},
        transitions={(s, t): (n, e) for s, t, n, e in rows},
        token_id_terminals={"EOT": EOT, **(THINK if thinking else {})},
        initial_state=REASONING if thinking else TEXT,
        wait_for_reasoning=thinking,
        strip_trailing_reasoning_ws=False,
    )


def _enable_thinking(kwargs: dict[str, Any]) -> bool:
    return bool(kwargs.get("enable_thinking", True))


@reasoning_parser("plamo3")
class Plamo3ReasoningParser(GrammarReasoningParser):
    grammar_cached_on_thinking_switch = True
    spec = GrammarSpec(_plamo3, _enable_thinking, plain_when_off=False)

    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        super().__init__(tokenizer, ctx)
        literals = [lit for lits in self.c.grammar.terminals.values() for lit in lits]
        self.unfinished = UnfinishedMarkers(tokenizer, literals)
        self.start_seq = self._encode(THINK["THINK_START"])
        self.end_seq = self._encode(THINK["THINK_END"])

    def _encode(self, text: str) -> list[int]:
        return list(self.tokenizer.encode(text, add_special_tokens=False))

    def is_reasoning_end(self, token_ids: Sequence[int]) -> bool:
        if not self.thinking:
            return True
        ids = list(token_ids)
        eot = self.vocab_id(EOT)
        for i in range(len(ids) - 1, -1, -1):
            if ids[i : i + len(self.end_seq)] == self.end_seq:
                return True
            if ids[i : i + len(self.start_seq)] == self.start_seq:
                return False
            if eot is not None and ids[i] == eot:
                return False
        return False

    def extract_content_ids(self, token_ids: Sequence[int]) -> list[int]:
        ids = list(token_ids)
        if not self.thinking:
            return ids
        n = len(self.end_seq)
        for i in range(len(ids) - n, -1, -1):
            if ids[i : i + n] == self.end_seq:
                return ids[i + n :]
        return ids

    def extract_reasoning(self, text: str) -> tuple[str | None, str | None]:
        reasoning, content = super().extract_reasoning(text)
        return self.unfinished.strip(reasoning), content

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> tuple[DeltaMessage | None, bool]:
        was_ended = bool(state.get("ended"))
        delta, ended = super().stream(state, delta_text, delta_ids)
        if ended and not was_ended and state.get("st") == S_AFTER_TURN:
            delta = self._cut_at_turn_tag(state, delta)
        return delta, ended

    def _cut_at_turn_tag(self, state: JSONState, delta: DeltaMessage | None) -> DeltaMessage | None:
        """A chunk that ends the reasoning and holds `<|plamo:tag|>`: the grammar already
        cut its content at the tag, so that content (held whitespace flushed too) passes
        the post-reasoning hook once, as the same text streamed token by token does."""
        flushed = self.finish(state)  # nothing is read after the tag; only held text
        content = ((delta.content if delta else None) or "") + (
            (flushed.content if flushed else None) or ""
        )
        if delta is not None:
            delta.content = content or None
        elif content:
            delta = DeltaMessage(content=content)
        if content:
            state["cut"] = content  # the hook's text in this chunk (no tool parser)
        return delta

    def content_after_reasoning(self, state: JSONState, text: str) -> str | None:
        """Pipeline hook (no tool parser): streamed content ends at `<|plamo:tag|>`.

        A possible start of the tag is held back; one-shot drops the text after the tag too.
        """
        if not text:
            return text  # an empty content delta stays one (vLLM streams `""`)
        if state.get("cut") is not None:  # the chunk that ended the reasoning at the tag
            cut, state["cut"], state["eot"] = state["cut"], None, True
            return text if text == cut else None
        if state.get("eot") or state.get("st") == S_AFTER_TURN:  # the tag ended the reasoning
            return None
        current = state.get("eh", "") + text
        at = current.find(EOT)
        if at >= 0:
            state["eot"], state["eh"] = True, ""
            return current[:at] or None
        keep = len(current) - partial_tag_overlap(current, EOT)
        state["eh"] = current[keep:]
        return current[:keep] or None

    def finish(self, state: JSONState) -> DeltaMessage | None:
        # The held tail flushed at the end: a cut-off marker is dropped, as in one-shot.
        delta = super().finish(state)
        if delta is not None and delta.reasoning:
            delta.reasoning = self.unfinished.strip(delta.reasoning)
            if delta.reasoning is None and delta.content is None and not delta.tool_calls:
                return None
        return delta
