"""glm45 / glm47: `<think>` reasoning, `<tool_call>NAME<arg_key>..` calls (GLM-4.5/4.7).

vLLM 0.33.0 runs both names on one grammar that starts inside the reasoning. glm45 follows
vLLM's tests/reasoning/test_glm4_moe_reasoning_parser.py instead (docs/deviations.md): GLM-4.5
writes its own `<think>`, so output without `<think>` is content, and one-shot a `<think>`
that nothing closes leaves the whole output as content (streaming sends it as reasoning, as
the test asserts). glm47 keeps 0.33.0's split (tests/reasoning/test_glm47_reasoning_parser.py).
"""

from __future__ import annotations

from functools import cache

from tokenfront.parsers.base import JSONState
from tokenfront.parsers.engines.markup_lexer import CONTENT
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
def _glm(thinking: bool, *, opens_in_text: bool = False) -> Grammar:
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
        initial_state=REASONING if thinking and not opens_in_text else TEXT,
        wait_for_reasoning=thinking,
        turn_boundaries=frozenset(("<|system|>", "<|user|>", "<|assistant|>", "<|observation|>")),
        strip_trailing_reasoning_ws=True,
    )


def _glm45(thinking: bool) -> Grammar:
    return _glm(thinking, opens_in_text=True)


@reasoning_parser("glm47")
class Glm47ReasoningParser(GrammarReasoningParser):
    spec = GrammarSpec(_glm, think_toggle_default_on)
    empty_reasoning_is_empty_string = True


@reasoning_parser("glm45")
class Glm45ReasoningParser(GrammarReasoningParser):
    spec = GrammarSpec(_glm45, think_toggle_default_on)

    def _process(self, st: JSONState, tokens: list[tuple[str, str]]) -> list[tuple[str, str]]:
        events: list[tuple[str, str]] = []
        for term, value in tokens:
            if self.thinking and not st.get("od") and st["st"] == TEXT:
                if term == "THINK_START":
                    st["od"] = True
                elif term != CONTENT or value.strip():
                    # the output does not open with `<think>`: no reasoning in it
                    st["od"] = True
                    events.append((END, ""))
            events.extend(super()._process(st, [(term, value)]))
        return events

    def extract_reasoning(self, text: str) -> tuple[str | None, str | None]:
        if self.thinking and self._left_open(text):
            return None, text
        return super().extract_reasoning(text)

    def _left_open(self, text: str) -> bool:
        """Whether only the end of the output ended the reasoning (no `</think>`, no call)."""
        st = self._fresh(TEXT if self.prompt_closes else self.c.grammar.initial_state)
        events = self._feed(st, text)
        return st["st"] == REASONING and not any(kind == END for kind, _ in events)
