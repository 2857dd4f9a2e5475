"""Seed-OSS tool calls: the Qwen3-Coder grammar inside `<seed:tool_call>` wrappers.

vLLM runs seed_oss on the qwen3 grammar with four wrapper tokens swapped, and its
tests/parser/engine/test_seed_oss.py says the qwen3 tests cover the shared grammar; so this
parser takes qwen3_coder's rules, including the deviations from vLLM 0.33.0 that those tests
assert (tool markup inside a parameter value stays in the value, as test_seed_oss.py's
`test_copied_closer_stays_inside_the_parameter` asserts for seed_oss itself; a fenced
`<seed:tool_call>` example in content stays content). Also asserted by vLLM's
tests/tool_parsers/test_seed_oss_tool_parser.py (docs/deviations.md):

* Without a reasoning parser, a `<seed:think>...</seed:think>` block is content in which tool
  markup is only quoted: a `<seed:tool_call>` example inside it is no call (one-shot: when
  the output closes the block; streaming: until `</seed:think>` arrives).
* The content before the first call keeps its trailing whitespace (0.33.0 strips it).
"""

from __future__ import annotations

from tokenfront.parsers.base import ExtractedToolCalls, JSONState
from tokenfront.parsers.engines.param_walk import CallMarkup, NestedParamCodec
from tokenfront.parsers.engines.xml_params import S_CONTENT, Event
from tokenfront.parsers.registry import tool_parser
from tokenfront.parsers.tools.qwen3_coder import Qwen3CoderToolParser, function_markup_grammar

THINK = ("<seed:think>", "</seed:think>")
CALL = ("<seed:tool_call>", "</seed:tool_call>")
SEED_OSS = function_markup_grammar("seed_oss", THINK, CALL, NestedParamCodec(CallMarkup(*CALL)))


@tool_parser("seed_oss")
class SeedOssToolParser(Qwen3CoderToolParser):
    name = "seed_oss"
    grammar = SEED_OSS
    supports_required_and_named = True  # vLLM 0.33.0 parses required / named itself

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        quoting = self.skip_reasoning_parsing
        # One-shot reads a think block as quoted text only when the output closes it.
        self._quote_think = quoting and THINK[0] in text and THINK[1] in text
        try:
            return super().extract_tool_calls(text)
        finally:
            self._quote_think = quoting

    @property
    def _quoting(self) -> bool:
        return getattr(self, "_quote_think", self.skip_reasoning_parsing)

    def _terminal(self, state: JSONState, terminal: str, text: str) -> list[Event]:
        if self._quoting:
            if state.get("qt"):
                if terminal == "THINK_END":
                    state["qt"] = False
                return self._emit(state, text)
            if terminal == "THINK_START" and state["st"] == S_CONTENT:
                state["qt"] = True
                return self._emit(state, text)
        return super()._terminal(state, terminal, text)

    def _final_content(self, content: str, tools_called: bool) -> str | None:
        if tools_called:
            content = content.lstrip()
        return content or None
