"""minimax_m2: reasoning until `</think>` (no opener needed); minimax_m2_append_think.

A `</think>` in the content after the reasoning is dropped (one-shot, as vLLM). Served with the
reasoning parser alone, vLLM 0.33.0 streams that content unparsed, repeated `</think>` included;
vLLM's tests/reasoning/test_minimax_m2_reasoning_parser.py::test_reasoning[double_end_token_streaming]
asserts it dropped, as the `content_after_reasoning` hook does here (docs/deviations.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from tokenfront.parsers.base import DeltaMessage, JSONState, ReasoningParser
from tokenfront.parsers.engines.marker_drop import drop_marker_flush, drop_marker_step
from tokenfront.parsers.engines.reasoning_grammar import (
    END,
    REASONING,
    TEXT,
    Grammar,
    GrammarReasoningParser,
    GrammarSpec,
)
from tokenfront.parsers.registry import reasoning_parser

PRE, NAME, ARGS, BETWEEN = "TOOL_PREAMBLE", "TOOL_NAME", "TOOL_ARGS", "TOOL_BETWEEN"
CALL_START, CALL_END, ARG = "TOOL_CALL_START", "TOOL_CALL_END", "ARG_VALUE_CHUNK"
INVOKES = ("INVOKE_PREFIX_DQ", "INVOKE_PREFIX_SQ", "INVOKE_PREFIX_UNQUOTED")
NAME_ENDS = ("NAME_END_DQ", "NAME_END_SQ", "NAME_END_UNQUOTED")


@cache
def _minimax(thinking: bool) -> Grammar:
    terminals = {
        "THINK_START": "<think>",
        "THINK_END": "</think>",
        "TOOL_START": "<minimax:tool_call>",
        "PARAM_START": "<parameter name=",
        "PARAM_END": "</parameter>",
        "TOOL_END": "</minimax:tool_call>",
        "INVOKE_PREFIX_DQ": '<invoke name="',
        "INVOKE_PREFIX_SQ": "<invoke name='",
        "INVOKE_PREFIX_UNQUOTED": "<invoke name=",
        "INVOKE_END": "</invoke>",
        "NAME_END_DQ": '">',
        "NAME_END_SQ": "'>",
        "NAME_END_UNQUOTED": ">",
    }
    rows = [
        (REASONING, "THINK_START", REASONING, ()),
        (REASONING, "THINK_END", TEXT, (END,)),
        (TEXT, "THINK_END", TEXT, ()),
        (REASONING, "TOOL_START", PRE, (END,)),
        (TEXT, "TOOL_START", PRE, ()),
        (ARGS, "PARAM_START", ARGS, (ARG,)),
        (ARGS, "PARAM_END", ARGS, (ARG,)),
        (PRE, "TOOL_END", TEXT, ()),
        (BETWEEN, "TOOL_END", TEXT, ()),
        (TEXT, "TOOL_END", TEXT, ()),
        (ARGS, "INVOKE_END", BETWEEN, (CALL_END,)),
        *[(s, t, NAME, (CALL_START,)) for s in (TEXT, PRE, BETWEEN) for t in INVOKES],
        *[(NAME, t, ARGS, ()) for t in NAME_ENDS],
    ]
    return Grammar(
        terminals={k: (v,) for k, v in terminals.items()},
        transitions={(s, t): (n, e) for s, t, n, e in rows},
        token_id_terminals={
            "THINK_START": "<think>",
            "THINK_END": "</think>",
            "TOOL_START": "<minimax:tool_call>",
            "TOOL_END": "</minimax:tool_call>",
        },
        initial_state=REASONING,
        wait_for_reasoning=True,
        strip_trailing_reasoning_ws=True,
    )


@reasoning_parser("minimax_m2")
class MinimaxM2ReasoningParser(GrammarReasoningParser):
    spec = GrammarSpec(_minimax)
    empty_reasoning_is_empty_string = True

    def extract_content_ids(self, token_ids: Sequence[int]) -> list[int]:
        ids = list(token_ids)
        end_id = self.vocab_id("</think>")
        if end_id is None:
            return []
        for i in range(len(ids) - 1, -1, -1):
            if ids[i] == end_id:
                return ids[i + 1 :]
        return []

    def content_after_reasoning(self, state: JSONState, text: str) -> str | None:
        """Pipeline hook (no tool parser): content without a repeated `</think>`."""
        return drop_marker_step(state, "_held_end", text, "</think>") or None

    def content_after_reasoning_flush(self, state: JSONState) -> str | None:
        return drop_marker_flush(state, "_held_end") or None


@reasoning_parser("minimax_m2_append_think")
class MinimaxM2AppendThinkReasoningParser(ReasoningParser):
    """Everything is content, with the `<think>` the template swallowed put back in front."""

    def _ids(self) -> tuple[int | None, int | None]:
        return self.vocab_id("<think>"), self.vocab_id("</think>")

    def is_reasoning_end(self, token_ids: Sequence[int]) -> bool:
        start, end = self._ids()
        for tid in reversed(token_ids):
            if tid in (start, end):
                return tid == end
        return False

    def extract_reasoning(self, text: str) -> tuple[str | None, str | None]:
        return None, "<think>" + text

    def initial_state(self, prompt_token_ids: Sequence[int] | None) -> JSONState:
        return {"n": 0, "last": None}

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> tuple[DeltaMessage | None, bool]:
        if state["n"] == 0:
            delta_text = "<think>" + delta_text
        state["n"] += len(delta_ids)
        start, end = self._ids()
        for tid in delta_ids:
            if tid in (start, end):
                state["last"] = tid
        # vLLM asks is_reasoning_end(all output ids): the last think marker decides.
        return DeltaMessage(content=delta_text), state["last"] is not None and state["last"] == end
