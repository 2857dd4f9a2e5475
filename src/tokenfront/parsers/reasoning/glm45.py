"""glm45 / glm47: `<think>` reasoning, `<tool_call>NAME<arg_key>..` calls (GLM-4.5/4.7).

vLLM 0.33.0 runs both names on one grammar that starts inside the reasoning, as the engine-era
tests/reasoning/test_glm4_moe_reasoning_parser.py asserts (output without `<think>` is
reasoning). glm47 also reads an empty reasoning section as "" one-shot, as its own tests assert
(tests/reasoning/test_glm47_reasoning_parser.py).
"""

from __future__ import annotations

from functools import cache

from tokenfront.parsers.engines.reasoning_grammar import (
    END,
    REASONING,
    START,
    TEXT,
    Grammar,
    GrammarReasoningParser,
    GrammarSpec,
    think_toggle_default_on,
)
from tokenfront.parsers.registry import reasoning_parser

NAME, ARGS = "TOOL_NAME", "TOOL_ARGS"
CALL_START, CALL_END, ARG = "TOOL_CALL_START", "TOOL_CALL_END", "ARG_VALUE_CHUNK"
ARG_TAGS = ("ARG_KEY_START", "ARG_KEY_END", "ARG_VALUE_START", "ARG_VALUE_END")


@cache
def _glm(thinking: bool) -> Grammar:
    terminals: dict[str, tuple[str, ...]] = {
        "TOOL_START": ("<tool_call>",),
        "TOOL_END": ("</tool_call>",),
        "ARG_KEY_START": ("<arg_key>",),
        "ARG_KEY_END": ("</arg_key>",),
        "ARG_VALUE_START": ("<arg_value>",),
        "ARG_VALUE_END": ("</arg_value>",),
    }
    ids = {"TOOL_START": "<tool_call>", "TOOL_END": "</tool_call>"}
    rows = [
        (REASONING, "THINK_START", REASONING, ()),
        (REASONING, "TOOL_START", NAME, (END, CALL_START)),
        (TEXT, "TOOL_START", NAME, (CALL_START,)),
        (NAME, "ARG_KEY_START", ARGS, (ARG,)),
        (NAME, "TOOL_END", TEXT, (CALL_END,)),
        (ARGS, "TOOL_END", TEXT, (CALL_END,)),
        *[(ARGS, tag, ARGS, (ARG,)) for tag in ARG_TAGS],
    ]
    if thinking:
        terminals = {"THINK_START": ("<think>",), "THINK_END": ("</think>",), **terminals}
        ids = {"THINK_START": "<think>", "THINK_END": "</think>", **ids}
        rows = [
            (TEXT, "THINK_START", REASONING, (START,)),
            (REASONING, "THINK_END", TEXT, (END,)),
            (TEXT, "THINK_END", TEXT, ()),
            *rows,
        ]
    return Grammar(
        terminals=terminals,
        transitions={(s, t): (n, e) for s, t, n, e in rows},
        token_id_terminals=ids,
        initial_state=REASONING if thinking else TEXT,
        wait_for_reasoning=thinking,
        turn_boundaries=frozenset(("<|system|>", "<|user|>", "<|assistant|>", "<|observation|>")),
        strip_trailing_reasoning_ws=True,
    )


@reasoning_parser("glm47")
class Glm47ReasoningParser(GrammarReasoningParser):
    spec = GrammarSpec(_glm, think_toggle_default_on)
    empty_reasoning_is_empty_string = True


@reasoning_parser("glm45")
class Glm45ReasoningParser(GrammarReasoningParser):
    spec = GrammarSpec(_glm, think_toggle_default_on)
