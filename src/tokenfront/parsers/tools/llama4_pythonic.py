"""`llama4_pythonic`: a Python call list, optionally inside <|python_start|>...<|python_end|>."""

from __future__ import annotations

from tokenfront.parsers.engines.python_calls import PythonCallListParser
from tokenfront.parsers.registry import tool_parser


@tool_parser("llama4_pythonic")
class Llama4PythonicToolParser(PythonCallListParser):
    name = "llama4_pythonic"
    wrapper_start = "<|python_start|>"
    wrapper_end = "<|python_end|>"
