"""gemma4: `<|channel>thought\\n...<channel|>` reasoning, only with `enable_thinking`.

The Gemma 4 grammar (`tools/gemma4.py`) with tool parsing skipped: `<|tool_call>` also ends
reasoning; `<|turn>` / `<|tool_response>` bound the prompt scan. The `thought\\n` prefix is
removed from the reasoning, a first chunk that looks like reasoning without the opener gets
one, and a prompt ending inside an open channel starts in reasoning.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from tokenfront.parsers.base import DeltaMessage, JSONState, ParseContext
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
from tokenfront.parsers.tools.gemma4 import (
    BOUNDARIES,
    CHANNEL_END,
    CHANNEL_START,
    DELIM,
    THOUGHT_PREFIX,
    TOOL_END,
    TOOL_START,
    gemma4_thinking,
    needs_channel_opener,
    prompt_in_open_channel,
    strip_thought_prefix,
)

PRE, NAME, ARGS = "TOOL_PREAMBLE", "TOOL_NAME", "TOOL_ARGS"
CALL_START, CALL_END = "TOOL_CALL_START", "TOOL_CALL_END"


@cache
def _gemma4(thinking: bool) -> Grammar:
    rows = [
        (TEXT, "THINK_START", REASONING, (START,)),
        (REASONING, "THINK_START", REASONING, ()),
        (REASONING, "THINK_END", TEXT, (END,)),
        (REASONING, "TOOL_START", PRE, (END, CALL_START)),
        (TEXT, "TOOL_START", PRE, (END, CALL_START)),
        (PRE, "TOOL_END", TEXT, (CALL_END,)),
        (PRE, "CALL_PREFIX", NAME, ()),
        (PRE, "COLON", NAME, ()),
        (NAME, "OPEN_BRACE", ARGS, ()),
        (NAME, "OPEN_PAREN", ARGS, ()),
        (NAME, "TOOL_END", TEXT, (CALL_END,)),
        (ARGS, "TOOL_END", TEXT, (CALL_END,)),
        (TEXT, "TOOL_END", TEXT, ()),
        (TEXT, "THINK_END", TEXT, ()),
    ]
    markers = {"THINK_START": CHANNEL_START, "THINK_END": CHANNEL_END,
               "TOOL_START": TOOL_START, "TOOL_END": TOOL_END}  # fmt: skip
    terminals = {**markers, "CALL_PREFIX": "call:", "COLON": ":", "OPEN_BRACE": "{", "OPEN_PAREN": "("}
    return Grammar(
        terminals={k: (v,) for k, v in terminals.items()},
        transitions={(s, t): (n, e) for s, t, n, e in rows},
        token_id_terminals=markers,
        initial_state=TEXT,
        wait_for_reasoning=thinking,
        turn_boundaries=BOUNDARIES,
        preserve_tokens=frozenset({DELIM}),
    )


def _opens_reasoning(text: str) -> bool:
    """A first streamed chunk that is reasoning whose `<|channel>` opener the model left out.

    vLLM 0.33.0 (and one-shot) also opens it for a first chunk holding `<channel|>`; one token
    per chunk never does (the first token is the text before it), so neither does a stream
    here: the chunking must not decide whether text is reasoning (docs/deviations.md).
    """
    if not text or CHANNEL_START in text:
        return False
    return text.startswith(THOUGHT_PREFIX) or text == THOUGHT_PREFIX.rstrip()


@reasoning_parser("gemma4")
class Gemma4ReasoningParser(GrammarReasoningParser):
    grammar_cached_on_thinking_switch = True
    spec = GrammarSpec(_gemma4, gemma4_thinking, plain_when_off=False)

    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        super().__init__(tokenizer, ctx)
        self.has_channel_ids = (
            self.vocab_id(CHANNEL_START) is not None and self.vocab_id(CHANNEL_END) is not None
        )
        self.opens_in_channel = prompt_in_open_channel(ctx.prompt_token_ids, self.vocab_id)

    def _fresh(self, initial: str) -> JSONState:
        state = super()._fresh(REASONING if self.opens_in_channel else initial)
        state.update({"fed": False, "rt": "", "ps": False})
        return state

    def stream_starts_ended(
        self, prompt_token_ids: Sequence[int], first_ids: Sequence[int], *, with_tools: bool
    ) -> bool:
        # Alone, thinking off, an output opening with `<|channel>`: the channel is read as
        # reasoning, as one-shot does (vLLM 0.33.0 streams it all as content, markers
        # included; docs/deviations.md). With tools the tool grammar reads it.
        opens = bool(first_ids) and first_ids[0] == self.vocab_id(CHANNEL_START)
        if opens and not self.thinking and not with_tools:
            return False
        return super().stream_starts_ended(prompt_token_ids, first_ids, with_tools=with_tools)

    def initial_state(self, prompt_token_ids: Sequence[int] | None) -> JSONState:
        state = super().initial_state(prompt_token_ids)
        state["sm"] = True  # streaming: the first chunk alone decides nothing by `<channel|>`
        return state

    def _feed(self, st: JSONState, text: str) -> list[tuple[str, str]]:
        if not st.get("fed", True):
            st["fed"] = True
            opens = _opens_reasoning if st.get("sm") else needs_channel_opener
            if st["st"] == TEXT and self.has_channel_ids and opens(text):
                text = CHANNEL_START + text
        return super()._feed(st, text)

    def extract_reasoning(self, text: str) -> tuple[str | None, str | None]:
        reasoning, content = super().extract_reasoning(text)
        if reasoning:
            if reasoning.startswith(THOUGHT_PREFIX):
                reasoning = reasoning[len(THOUGHT_PREFIX) :]
            elif reasoning == THOUGHT_PREFIX.rstrip():
                reasoning = None
        return reasoning or None, content

    def _to_delta(
        self, st: JSONState, events: list[tuple[str, str]], *, finished: bool
    ) -> DeltaMessage | None:
        delta = super()._to_delta(st, events, finished=finished)
        return strip_thought_prefix(st, delta, finished)
