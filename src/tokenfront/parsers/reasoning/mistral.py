"""mistral: `[THINK]...[/THINK]` (v13+ tokenizers) or `<think>` text (v11 mistral-common).

The tokenizer decides the encoding: `[THINK]` in the vocabulary means special tokens, a
mistral-common tokenizer with grammar support means text markers, anything else has no
reasoning (vLLM then returns the whole output as content). Reasoning is opened by the marker
(the output starts in content); `[TOOL_CALLS]` ends it implicitly.
"""

from __future__ import annotations

from typing import Any

from tokenfront.parsers.base import ParseContext
from tokenfront.parsers.engines.reasoning_grammar import (
    END,
    REASONING,
    TEXT,
    Grammar,
    GrammarReasoningParser,
    GrammarSpec,
)
from tokenfront.parsers.registry import reasoning_parser
from tokenfront.tokenization.vocab import vocab_of

NAME, ARGS = "TOOL_NAME", "TOOL_ARGS"
CALL_START, CALL_END, ARG = "TOOL_CALL_START", "TOOL_CALL_END", "ARG_VALUE_CHUNK"


def _grammar(encoding: str) -> Grammar:
    markers: dict[str, str] = {}
    ids: dict[str, str] = {}
    if encoding == "special_token":
        markers = {"THINK_START": "[THINK]", "THINK_END": "[/THINK]"}
        ids = dict(markers)
    elif encoding == "text":
        markers = {"THINK_START": "<think>", "THINK_END": "</think>"}
    reasoning = encoding != "none"
    rows = [
        (TEXT, "TOOL_CALLS", NAME, (END, CALL_START) if reasoning else (CALL_START,)),
        (NAME, "ARGS", ARGS, ()),
        (NAME, "OPEN_BRACE", ARGS, (ARG,)),
        (ARGS, "TOOL_CALLS", NAME, (CALL_END, CALL_START)),
    ]
    if reasoning:
        rows += [
            (TEXT, "THINK_START", REASONING, ()),
            (REASONING, "THINK_START", REASONING, ()),
            (REASONING, "THINK_END", TEXT, (END,)),
            (TEXT, "THINK_END", TEXT, ()),
            (REASONING, "TOOL_CALLS", NAME, (END, CALL_START)),
        ]
    terminals = {**markers, "TOOL_CALLS": "[TOOL_CALLS]", "ARGS": "[ARGS]", "OPEN_BRACE": "{"}
    return Grammar(
        terminals={k: (v,) for k, v in terminals.items()},
        transitions={(s, t): (n, e) for s, t, n, e in rows},
        token_id_terminals={**ids, "TOOL_CALLS": "[TOOL_CALLS]", "ARGS": "[ARGS]"},
        initial_state=TEXT,
        wait_for_reasoning=reasoning,
        strip_trailing_reasoning_ws=True,
    )


_ENCODINGS = ("special_token", "text", "none")


def _encoding(tokenizer: Any) -> str:
    if "[THINK]" in vocab_of(tokenizer):
        return "special_token"
    if getattr(tokenizer, "supports_grammar", False):
        return "text"
    return "none"


def _spec(encoding: str) -> GrammarSpec:
    built = _grammar(encoding)
    return GrammarSpec(lambda thinking: built, plain_when_off=False)


_SPECS = {enc: _spec(enc) for enc in _ENCODINGS}


@reasoning_parser("mistral")
class MistralReasoningParser(GrammarReasoningParser):
    spec = _SPECS["none"]

    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        self.encoding = _encoding(tokenizer)
        self.spec = _SPECS[self.encoding]  # type: ignore[misc]  # per tokenizer, not per class
        super().__init__(tokenizer, ctx)

    def extract_reasoning(self, text: str) -> tuple[str | None, str | None]:
        if self.encoding == "none":
            return None, text
        return super().extract_reasoning(text)
