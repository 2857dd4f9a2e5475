"""step3p5: Qwen3 `<think>` reasoning that is always on, with the newline rules of vLLM's
step3p5 reasoning tests (the model closes reasoning with `\\n</think>\\n`):

- one newline right before `</think>` (or at the end of unfinished reasoning) is dropped;
- one newline right after `</think>` is dropped;
- one-shot, text before the output's own `<think>` is content, ahead of the answer.

vLLM 0.33.0's engine parser strips all trailing reasoning whitespace, keeps the newline after
`</think>` and reads text before `<think>` as reasoning (docs/deviations.md).
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache

from tokenfront.parsers.base import JSONState
from tokenfront.parsers.engines.reasoning_grammar import (
    END,
    Grammar,
    GrammarReasoningParser,
    GrammarSpec,
    always_on,
)
from tokenfront.parsers.reasoning.qwen3 import xml_call_grammar
from tokenfront.parsers.registry import reasoning_parser


@cache
def _step3p5(thinking: bool) -> Grammar:
    return replace(xml_call_grammar(True), strip_trailing_reasoning_ws=False)


@reasoning_parser("step3p5")
class Step3p5ReasoningParser(GrammarReasoningParser):
    grammar_cached_on_thinking_switch = True
    spec = GrammarSpec(_step3p5, always_on)

    def _process(self, st: JSONState, tokens: list[tuple[str, str]]) -> list[tuple[str, str]]:
        # st["nl"]: a reasoning newline held until it is known not to precede `</think>`;
        # st["after_end"]: `</think>` seen and no answer text yet.
        out: list[tuple[str, str]] = []
        for kind, value in super()._process(st, tokens):
            if kind == "R":
                if st.get("nl"):
                    value = "\n" + value
                st["nl"] = value.endswith("\n")
                value = value.removesuffix("\n")
            elif kind == END:
                st["nl"], st["after_end"] = False, True
            elif kind == "T":
                value = self._answer_start(st, value)
            if value or kind not in ("R", "T"):
                out.append((kind, value))
        return out

    @staticmethod
    def _answer_start(st: JSONState, text: str) -> str:
        if text and st.get("after_end"):
            st["after_end"] = False
            return text.removeprefix("\n")
        return text

    def content_after_reasoning(self, st: JSONState, text: str) -> str | None:
        """Pipeline hook (no tool parser): streamed answer text after the reasoning."""
        if not text:
            return text  # an empty delta (the stop token's) is sent as ""
        return self._answer_start(st, text) or None

    def text_for_tool_parser(self, st: JSONState, text: str) -> str:
        return self._answer_start(st, text)

    def extract_reasoning(self, text: str) -> tuple[str | None, str | None]:
        # the grammar always starts in the reasoning; a prompt that closed it leaves no prefix
        prefix, opener, rest = text.partition(self.c.grammar.terminals["THINK_START"][0])
        if not opener or self.prompt_closes:
            return super().extract_reasoning(text)
        reasoning, content = super().extract_reasoning(opener + rest)
        return reasoning, (prefix + (content or "")) or None
