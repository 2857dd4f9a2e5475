"""seed_oss reasoning: the qwen3 grammar with `<seed:think>` / `<seed:tool_call>` markers.

Deviations from vLLM 0.33.0 that vLLM's own tests assert (docs/deviations.md):

* a `<seed:tool_call>` quoted inside a `<seed:think>` block the output opens with does not end the
  reasoning when a `</seed:think>` follows: the example stays reasoning text (0.33.0 cuts the reasoning there and the example
  becomes a second call; tests/tool_parsers/test_seed_oss_tool_parser.py's unlimited thinking
  budget case). Until `</seed:think>` or the end of the output decides, the text from the
  `<seed:tool_call>` on is held back; at the end of the output it is the implicit reasoning
  end of 0.33.0 (the call is parsed);
* a `<seed:tool_call>` inside a fenced code example in the reasoning stays reasoning (qwen3's
  rule, tests/parser/engine/test_qwen3_fenced_examples.py).
"""

from __future__ import annotations

from functools import cache

from tokenfront.parsers.base import JSONState
from tokenfront.parsers.engines.fences import in_fence
from tokenfront.parsers.engines.markup_lexer import CONTENT
from tokenfront.parsers.engines.reasoning_grammar import (
    DROP,
    REASONING,
    Grammar,
    GrammarSpec,
    enable_thinking_only,
)
from tokenfront.parsers.reasoning.qwen3 import Qwen3ReasoningParser, xml_call_grammar
from tokenfront.parsers.registry import reasoning_parser

Events = list[tuple[str, str]]


@cache
def _seed_oss(thinking: bool) -> Grammar:
    return xml_call_grammar(
        thinking,
        think=("<seed:think>", "</seed:think>"),
        tool=("<seed:tool_call>", "</seed:tool_call>"),
        boundaries=frozenset(("<seed:bos>", "<seed:eos>")),
    )


@reasoning_parser("seed_oss")
class SeedOssReasoningParser(Qwen3ReasoningParser):
    spec = GrammarSpec(_seed_oss, enable_thinking_only)
    quoted_call_stays_reasoning = False  # no seed_oss test asks for it: 0.33.0's rule
    answer_before_promoted_call = False  # qwen3's test only: 0.33.0's order

    def _process(self, st: JSONState, tokens: list[tuple[str, str]]) -> Events:
        events: Events = []
        for term, value in tokens:
            held = st.get("hold")
            if held is not None:
                if term == "THINK_END":  # the block closes: the call was quoted
                    st["hold"] = None
                    events.extend(self._quoted(st, held))
                    events.extend(super()._process(st, [(term, value)]))
                else:
                    held.append([term, value])
                continue
            if term == CONTENT and value.strip():
                st["tx"] = True
            if term == "THINK_START" and st["st"] == REASONING and not st.get("tx"):
                st["ot"] = True  # the output opened with its think block
            if (
                term == "TOOL_START"
                and st["st"] == REASONING
                and st.get("ot")
                and not in_fence(st.get("fc") or ["", None])
            ):
                st["hold"] = [[term, value]]
                continue
            events.extend(super()._process(st, [(term, value)]))
        return events

    def _quoted(self, st: JSONState, held: list[list[str]]) -> Events:
        events: Events = []
        for term, value in held:
            if term != DROP and value:
                events.extend(self._emit(st, value))
        return events

    def _release(self, st: JSONState) -> Events:
        """The output ended inside the reasoning: the held call is its implicit end."""
        held = st.pop("hold", None) or []
        st["hold"] = None
        return super()._process(st, [(t, v) for t, v in held])

    def _finish_events(self, st: JSONState) -> Events:
        tokens = self.c.lexer.flush(st["buf"])
        st["buf"] = ""
        events = self._process(st, [t for t in tokens if t[0] != CONTENT or t[1]])
        if st.get("hold") is not None:
            events.extend(self._release(st))
        return events + super()._finish_events(st)

    def ends_at_finish(self, state: JSONState) -> bool:
        """Whether the end of the output ends the reasoning here (a held call)."""
        return state.get("hold") is not None
