"""Seed-OSS tool calls: the Qwen3-Coder grammar inside `<seed:tool_call>` wrappers."""

from __future__ import annotations

from tokenfront.parsers.engines.xml_params import MarkupToolParser
from tokenfront.parsers.registry import tool_parser
from tokenfront.parsers.tools.qwen3_coder import function_markup_grammar

SEED_OSS = function_markup_grammar(
    "seed_oss", ("<seed:think>", "</seed:think>"), ("<seed:tool_call>", "</seed:tool_call>")
)


@tool_parser("seed_oss")
class SeedOssToolParser(MarkupToolParser):
    name = "seed_oss"
    grammar = SEED_OSS
