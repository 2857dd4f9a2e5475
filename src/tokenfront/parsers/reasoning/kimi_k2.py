"""kimi_k2: `<think>` reasoning; a tool-calls section opener ends it implicitly."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from tokenfront.parsers.engines.reasoning_grammar import (
    END,
    REASONING,
    TEXT,
    Grammar,
    GrammarReasoningParser,
    GrammarSpec,
    think_toggle_default_on,
)
from tokenfront.parsers.registry import reasoning_parser

PRE, NAME, ARGS, BETWEEN = "TOOL_PREAMBLE", "TOOL_NAME", "TOOL_ARGS", "TOOL_BETWEEN"
CALL_START, CALL_END = "TOOL_CALL_START", "TOOL_CALL_END"
SECTION_START = "<|tool_calls_section_begin|>"


@cache
def _kimi(thinking: bool) -> Grammar:
    markers = {
        "TOOL_SECTION_START": SECTION_START,
        "TOOL_SECTION_END": "<|tool_calls_section_end|>",
        "TOOL_START": "<|tool_call_begin|>",
        "TOOL_END": "<|tool_call_end|>",
        "ARG_START": "<|tool_call_argument_begin|>",
    }
    rows = [
        (REASONING, "TOOL_SECTION_START", PRE, (END,)),
        (TEXT, "TOOL_SECTION_START", PRE, ()),
        (PRE, "TOOL_START", NAME, (CALL_START,)),
        (NAME, "ARG_START", ARGS, ()),
        (ARGS, "TOOL_END", BETWEEN, (CALL_END,)),
        (ARGS, "TOOL_SECTION_END", PRE, (CALL_END,)),
        (BETWEEN, "TOOL_START", NAME, (CALL_START,)),
        (PRE, "TOOL_SECTION_END", PRE, ()),
        (BETWEEN, "TOOL_SECTION_END", PRE, ()),
    ]
    if thinking:
        markers = {"THINK_START": "<think>", "THINK_END": "</think>", **markers}
        rows = [
            (REASONING, "THINK_START", REASONING, ()),
            (REASONING, "THINK_END", TEXT, (END,)),
            (TEXT, "THINK_END", TEXT, ()),
            *rows,
        ]
    return Grammar(
        terminals={k: (v,) for k, v in markers.items()},
        transitions={(s, t): (n, e) for s, t, n, e in rows},
        token_id_terminals=dict(markers),
        initial_state=REASONING if thinking else TEXT,
        wait_for_reasoning=thinking,
        strip_trailing_reasoning_ws=True,
    )


@reasoning_parser("kimi_k2")
class KimiK2ReasoningParser(GrammarReasoningParser):
    spec = GrammarSpec(_kimi, think_toggle_default_on)
    empty_reasoning_is_empty_string = True
    empty_reasoning_needs_opener = True
    constrained_output_is_content = True

    def extract_content_ids(self, token_ids: Sequence[int]) -> list[int]:
        ids = list(token_ids)
        if not self.thinking or self.opened_as_content:
            return ids
        for marker, keep in (("</think>", False), (SECTION_START, True)):
            tid = self.vocab_id(marker)
            if tid is not None and tid in ids:
                at = len(ids) - 1 - ids[::-1].index(tid)
                return ids[at:] if keep else ids[at + 1 :]
        return []
