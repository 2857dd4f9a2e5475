"""The parser registry finds a parser by importing only its module, and plugins win names."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tokenfront.parsers import registry
from tokenfront.parsers.base import ToolParser
from tokenfront.parsers.builtin_index import REASONING_PARSER_MODULES, TOOL_PARSER_MODULES


def test_index_matches_what_the_builtin_modules_register() -> None:
    tools, reasoning = registry.builtin_index()
    assert TOOL_PARSER_MODULES == tools, "stale index: run `make parser-index`"
    assert REASONING_PARSER_MODULES == reasoning, "stale index: run `make parser-index`"


def test_lookup_by_name_imports_only_that_parsers_module() -> None:
    code = (
        "import sys\n"
        "from tokenfront.parsers.registry import get_reasoning_parser, get_tool_parser\n"
        "get_tool_parser('hermes'); get_reasoning_parser('qwen3')\n"
        "mods = [m for m in sys.modules if m.startswith(('tokenfront.parsers.tools.',"
        " 'tokenfront.parsers.reasoning.'))]\n"
        "print(len(mods))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert int(out.stdout.strip()) < 10


def test_unknown_name_lists_every_builtin_name() -> None:
    with pytest.raises(registry.UnknownParserError) as info:
        registry.get_tool_parser("no-such-parser")
    assert "hermes" in str(info.value) and "qwen3_coder" in str(info.value)


def test_a_plugin_keeps_its_name_when_the_builtin_module_is_imported_later(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(registry, "_TOOL_PARSERS", {})

    class PluginHermes(ToolParser):
        pass

    PluginHermes.__module__ = "my_plugin"
    registry.tool_parser("hermes")(PluginHermes)

    class BuiltinHermes(ToolParser):
        pass

    BuiltinHermes.__module__ = "tokenfront.parsers.tools.hermes"
    registry.tool_parser("hermes")(BuiltinHermes)
    assert registry._TOOL_PARSERS["hermes"] is PluginHermes


def test_the_parsers_vllm_builds_from_a_grammar_cache_keyed_by_the_thinking_switch() -> None:
    # vLLM 0.33.0: the Qwen3Parser family, Gemma4Parser and Plamo3Parser engine configs
    # (`functools.cache` over the raw `enable_thinking`), as registered by name
    reasoning = {
        name for name in registry.reasoning_parser_names()
        if registry.get_reasoning_parser(name).grammar_cached_on_thinking_switch
    }
    tools = {
        name for name in registry.tool_parser_names()
        if registry.get_tool_parser(name).grammar_cached_on_thinking_switch
    }
    assert reasoning == {"qwen3", "seed_oss", "step3p5", "nemotron_v3", "granite_thinking_parser",
                         "mimo", "minicpmv", "gemma4", "plamo3"}
    assert tools == {"qwen3_coder", "qwen3_xml", "seed_oss", "step3p5", "step5", "mimo", "gemma4",
                     "plamo3"}
