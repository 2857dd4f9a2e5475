"""`hf` and `beam`: tool calls read with the checkpoint's `response_template`.

Both select the whole-output template parser (`engines/response_template.py`) that the pipeline
runs instead of a reasoning-then-tools split; `beam` differs from `hf` only in how vLLM
constrains generation at render time, not in how it reads the output.
"""

from __future__ import annotations

from typing import ClassVar

from tokenfront.parsers.base import ExtractedToolCalls, ToolParser
from tokenfront.parsers.registry import tool_parser


@tool_parser("hf")
class HfToolParser(ToolParser):
    # The whole-output parser family this name stands for (see `parsers/pipeline.py`).
    whole_output: ClassVar[str] = "hf"
    engine_based = True

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        raise NotImplementedError("the response-template parser reads the whole output")


@tool_parser("beam")
class BeamToolParser(HfToolParser):
    whole_output = "beam"
