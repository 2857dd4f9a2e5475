"""The parser registry: vLLM's parser names mapped to parser classes.

Built-in parsers register themselves when their module is imported. Importing all hundred
modules costs a noticeable share of start-up, so a lookup by name imports only the module
`builtin_index` names for it; listing every name imports them all. Out-of-tree parsers come
from the `tokenfront.tool_parsers` / `tokenfront.reasoning_parsers` entry-point groups or a
`--tool-parser-plugin FILE`, and win over a built-in parser of the same name.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import pkgutil
import sys
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any, TypeVar

from tokenfront.parsers.base import ReasoningParser, ToolParser
from tokenfront.parsers.builtin_index import REASONING_PARSER_MODULES, TOOL_PARSER_MODULES

logger = logging.getLogger(__name__)

T = TypeVar("T")

_TOOL_PARSERS: dict[str, type[ToolParser]] = {}
_REASONING_PARSERS: dict[str, type[ReasoningParser]] = {}
# (table id, name) -> the module whose import registered it.
_REGISTERED_BY: dict[tuple[int, str], str] = {}

# Packages whose every module defines built-in parsers; each registers its specs on import.
_BUILTIN_PACKAGES: list[str] = [
    "tokenfront.parsers.reasoning",
    "tokenfront.parsers.tools",
]
_BUILTIN_PREFIX = "tokenfront.parsers."
_loaded = False
_plugins_loaded = False


class UnknownParserError(ValueError):
    pass


def tool_parser(*names: str) -> Callable[[type[ToolParser]], type[ToolParser]]:
    """Class decorator: register a tool parser under one or more vLLM names."""

    def register(cls: type[ToolParser]) -> type[ToolParser]:
        for name in names:
            _register(_TOOL_PARSERS, name, cls, _caller_module())
        return cls

    return register


def reasoning_parser(*names: str) -> Callable[[type[ReasoningParser]], type[ReasoningParser]]:
    """Class decorator: register a reasoning parser under one or more vLLM names."""

    def register(cls: type[ReasoningParser]) -> type[ReasoningParser]:
        for name in names:
            _register(_REASONING_PARSERS, name, cls, _caller_module())
        return cls

    return register


def _is_builtin(cls: type) -> bool:
    return cls.__module__.startswith(_BUILTIN_PREFIX)


def _caller_module() -> str:
    return str(sys._getframe(2).f_globals.get("__name__", ""))


def _register(table: dict[str, type[T]], name: str, cls: type[T], origin: str) -> None:
    current = table.get(name)
    if current is not None and _is_builtin(cls) and not _is_builtin(current):
        return  # a plugin already claimed the name; a built-in imported later does not take it
    table[name] = cls
    _REGISTERED_BY[(id(table), name)] = origin


def _load_plugins() -> None:
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    for group in ("tokenfront.tool_parsers", "tokenfront.reasoning_parsers"):
        for ep in entry_points(group=group):
            try:
                ep.load()
            except Exception:
                logger.exception("cannot load parser plugin %s", ep.name)


def builtin_modules() -> list[str]:
    """Every module of the built-in parser packages."""
    modules = []
    for package_name in _BUILTIN_PACKAGES:
        package = importlib.import_module(package_name)
        for info in pkgutil.iter_modules(package.__path__):
            if not info.name.startswith("_"):
                modules.append(f"{package_name}.{info.name}")
    return modules


def _load_builtins() -> None:
    global _loaded
    _load_plugins()
    if _loaded:
        return
    _loaded = True
    for module in builtin_modules():
        importlib.import_module(module)


def _lookup(table: dict[str, type[T]], index: dict[str, str], name: str) -> type[T] | None:
    _load_plugins()
    cls = table.get(name)
    if cls is None and name in index:
        importlib.import_module(index[name])
        cls = table.get(name)
    if cls is None:
        _load_builtins()
        cls = table.get(name)
    return cls


def load_plugin_file(path: str) -> None:
    """Import a parser plugin file (`--tool-parser-plugin`); it registers with the decorators."""
    spec = importlib.util.spec_from_file_location(f"tokenfront_plugin_{abs(hash(path))}", path)
    if spec is None or spec.loader is None:
        raise UnknownParserError(f"cannot import parser plugin {path!r}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)


def tool_parser_names() -> list[str]:
    _load_builtins()
    return sorted(_TOOL_PARSERS)


def reasoning_parser_names() -> list[str]:
    _load_builtins()
    return sorted(_REASONING_PARSERS)


def get_tool_parser(name: str) -> type[ToolParser]:
    cls = _lookup(_TOOL_PARSERS, TOOL_PARSER_MODULES, name)
    if cls is None:
        raise UnknownParserError(
            f"invalid tool call parser: {name} (chose from {{ {', '.join(sorted(_TOOL_PARSERS))} }})"
        )
    return cls


def get_reasoning_parser(name: str) -> type[ReasoningParser]:
    cls = _lookup(_REASONING_PARSERS, REASONING_PARSER_MODULES, name)
    if cls is None:
        raise UnknownParserError(
            f"invalid reasoning parser: {name} (chose from {{ {', '.join(sorted(_REASONING_PARSERS))} }})"
        )
    return cls


def builtin_index() -> tuple[dict[str, str], dict[str, str]]:
    """Tool and reasoning parser names -> the built-in module that registers each (imports all)."""
    _load_builtins()

    def origins(table: dict[str, Any]) -> dict[str, str]:
        found = {name: _REGISTERED_BY.get((id(table), name), "") for name in sorted(table)}
        return {name: module for name, module in found.items() if module.startswith(_BUILTIN_PREFIX)}

    return origins(_TOOL_PARSERS), origins(_REASONING_PARSERS)
