"""Step3 tool calls (`step3`): steptml invokes inside the `<｜tool_calls_begin｜>` section."""

from __future__ import annotations

from tokenfront.parsers.engines.steptml import StepTmlToolParser
from tokenfront.parsers.registry import tool_parser


@tool_parser("step3")
class Step3ToolParser(StepTmlToolParser):
    name = "step3"
