"""mistral: `[THINK]...[/THINK]` (v13+ tokenizers) or `<think>` text (v11 mistral-common).

The tokenizer decides the encoding: `[THINK]` in the vocabulary means special tokens, a
mistral-common tokenizer with grammar support means `<think>` text markers. For any other
tokenizer (pre-v11, or a v11 Magistral read in Hugging Face mode) vLLM 0.33.0 turns reasoning
off and returns the whole output as content; tokenfront reads either spelling as text there, as
vLLM's reasoning tests assert for the two encodings (docs/deviations.md). Reasoning is opened by
the marker (the output starts in content); `[TOOL_CALLS]` ends it implicitly.
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
from tokenfront.tokenization.vocab import token_lookup

NAME, ARGS = "TOOL_NAME", "TOOL_ARGS"
CALL_START, CALL_END, ARG = "TOOL_CALL_START", "TOOL_CALL_END", "ARG_VALUE_CHUNK"


_Markers = dict[str, tuple[str, ...]]
_SPECIAL: _Markers = {"THINK_START": ("[THINK]",), "THINK_END": ("[/THINK]",)}
_TEXT: _Markers = {"THINK_START": ("<think>",), "THINK_END": ("</think>",)}
_EITHER: _Markers = {k: _SPECIAL[k] + _TEXT[k] for k in _SPECIAL}
_MARKERS: dict[str, _Markers] = {"special_token": _SPECIAL, "text": _TEXT, "either_text": _EITHER}


def _grammar(encoding: str) -> Grammar:
    markers = _MARKERS[encoding]
    ids = {k: v[0] for k, v in _SPECIAL.items()} if encoding == "special_token" else {}
    rows = [
        (TEXT, "TOOL_CALLS", NAME, (END, CALL_START)),
        (NAME, "ARGS", ARGS, ()),
        (NAME, "OPEN_BRACE", ARGS, (ARG,)),
        (ARGS, "TOOL_CALLS", NAME, (CALL_END, CALL_START)),
        (TEXT, "THINK_START", REASONING, ()),
        (REASONING, "THINK_START", REASONING, ()),
        (REASONING, "THINK_END", TEXT, (END,)),
        (TEXT, "THINK_END", TEXT, ()),
        (REASONING, "TOOL_CALLS", NAME, (END, CALL_START)),
    ]
    tool_terminals = {"TOOL_CALLS": "[TOOL_CALLS]", "ARGS": "[ARGS]", "OPEN_BRACE": "{"}
    return Grammar(
        terminals={**markers, **{k: (v,) for k, v in tool_terminals.items()}},
        transitions={(s, t): (n, e) for s, t, n, e in rows},
        token_id_terminals={**ids, "TOOL_CALLS": "[TOOL_CALLS]", "ARGS": "[ARGS]"},
        initial_state=TEXT,
        wait_for_reasoning=True,
        strip_trailing_reasoning_ws=True,
    )


def _encoding(tokenizer: Any) -> str:
    if "[THINK]" in token_lookup(tokenizer):
        return "special_token"
    if getattr(tokenizer, "supports_grammar", False):
        return "text"
    return "either_text"


def _spec(encoding: str) -> GrammarSpec:
    built = _grammar(encoding)
    return GrammarSpec(lambda thinking: built, plain_when_off=False)


_SPECS = {enc: _spec(enc) for enc in _MARKERS}


@reasoning_parser("mistral")
class MistralReasoningParser(GrammarReasoningParser):
    spec = _SPECS["either_text"]

    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        if "[TOOL_CALLS]" not in token_lookup(tokenizer):  # vLLM's Mistral parser needs it, reasoning alone too
            raise RuntimeError("Mistral parser could not locate the tool call token in the tokenizer!")
        self.encoding = _encoding(tokenizer)
        self.spec = _SPECS[self.encoding]  # type: ignore[misc]  # per tokenizer, not per class
        super().__init__(tokenizer, ctx)
