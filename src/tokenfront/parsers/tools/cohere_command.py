"""cohere_command3 / cohere_command4: Cohere Command A / Command R7B output (tool half).

`<|START_THINKING|>` plan `<|END_THINKING|>`, `<|START_ACTION|>[{"tool_call_id": "0",
"tool_name": ..., "parameters": {...}}]<|END_ACTION|>` and `<|START_RESPONSE|>` answer
`<|END_RESPONSE|>`. vLLM 0.33.0 hands the whole output to one `cohere-melody` filter (presets
cmd3 / cmd4); here that is the mode filter engine (`engines/mode_filter.py`) with the two
marker tables below, run by the pipeline as a whole-output parser. Command 3 output starts as
answer text; Command 4 starts in reasoning (its prompt opens thinking) and also knows
`<|START_TEXT|>` / `<|END_TEXT|>`.
"""

from __future__ import annotations

from typing import ClassVar

from tokenfront.parsers.base import ExtractedToolCalls, ToolParser
from tokenfront.parsers.engines.filter_parser import ModeFilterOutput, filter_output
from tokenfront.parsers.engines.mode_filter import ACTION, ANSWER, IGNORE, REASON, ModeFilterSpec
from tokenfront.parsers.registry import tool_parser

_COMMON = {
    "<|START_RESPONSE|>": ANSWER,
    "<|END_RESPONSE|>": IGNORE,
    "<|START_THINKING|>": REASON,
    "<|END_THINKING|>": ANSWER,
    "<|START_ACTION|>": ACTION,
    "<|END_ACTION|>": IGNORE,
}

SPECS: dict[str, ModeFilterSpec] = {
    "cmd3": ModeFilterSpec(start_mode=ANSWER, markers=dict(_COMMON)),
    "cmd4": ModeFilterSpec(
        start_mode=REASON,
        markers={**_COMMON, "<|START_TEXT|>": ANSWER, "<|END_TEXT|>": IGNORE},
    ),
}

# The whole-output parser of each family, shared by its tool and reasoning parser names.
COMMAND3 = filter_output(SPECS["cmd3"], "CohereCommand3Output")
COMMAND4 = filter_output(SPECS["cmd4"], "CohereCommand4Output")


class CohereCommandToolParser(ToolParser):
    """Names the family's whole-output parser; the split pipeline hooks are not used."""

    whole_output: ClassVar[type[ModeFilterOutput]]
    engine_based = True

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        output = self.whole_output(self.tokenizer, self.ctx, parse_tools=True)
        _, content, calls = output.parse(text)
        return ExtractedToolCalls(bool(calls), list(calls or []), content)


@tool_parser("cohere_command3")
class CohereCommand3ToolParser(CohereCommandToolParser):
    whole_output = COMMAND3


@tool_parser("cohere_command4")
class CohereCommand4ToolParser(CohereCommandToolParser):
    whole_output = COMMAND4
