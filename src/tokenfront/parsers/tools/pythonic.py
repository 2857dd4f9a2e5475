"""`pythonic`: the whole output is a Python list of calls, e.g. `[get_time(), f(x=1)]`."""

from __future__ import annotations

from tokenfront.parsers.engines.python_calls import PythonCallListParser
from tokenfront.parsers.registry import tool_parser


@tool_parser("pythonic")
class PythonicToolParser(PythonCallListParser):
    name = "pythonic"
    salvage_syntax_errors = True
