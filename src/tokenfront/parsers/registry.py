"""The parser registry: vLLM's parser names mapped to parser classes.

Built-in parsers register themselves when their module is imported (see `_BUILTIN_MODULES`);
out-of-tree parsers come from the `tokenfront.tool_parsers` / `tokenfront.reasoning_parsers`
entry-point groups or a `--tool-parser-plugin FILE`.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import pkgutil
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import TypeVar

from tokenfront.parsers.base import ReasoningParser, ToolParser

logger = logging.getLogger(__name__)

T = TypeVar("T")

_TOOL_PARSERS: dict[str, type[ToolParser]] = {}
_REASONING_PARSERS: dict[str, type[ReasoningParser]] = {}

# Packages whose every module defines built-in parsers; each registers its specs on import.
_BUILTIN_PACKAGES: list[str] = [
    "tokenfront.parsers.reasoning",
    "tokenfront.parsers.tools",
]
_loaded = False


class UnknownParserError(ValueError):
    pass


def tool_parser(*names: str) -> Callable[[type[ToolParser]], type[ToolParser]]:
    """Class decorator: register a tool parser under one or more vLLM names."""

    def register(cls: type[ToolParser]) -> type[ToolParser]:
        for name in names:
            _TOOL_PARSERS[name] = cls
        return cls

    return register


def reasoning_parser(*names: str) -> Callable[[type[ReasoningParser]], type[ReasoningParser]]:
    """Class decorator: register a reasoning parser under one or more vLLM names."""

    def register(cls: type[ReasoningParser]) -> type[ReasoningParser]:
        for name in names:
            _REASONING_PARSERS[name] = cls
        return cls

    return register


def _load_builtins() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for package_name in _BUILTIN_PACKAGES:
        package = importlib.import_module(package_name)
        for info in pkgutil.iter_modules(package.__path__):
            if not info.name.startswith("_"):
                importlib.import_module(f"{package_name}.{info.name}")
    for group in ("tokenfront.tool_parsers", "tokenfront.reasoning_parsers"):
        for ep in entry_points(group=group):
            try:
                ep.load()
            except Exception:
                logger.exception("cannot load parser plugin %s", ep.name)


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
    _load_builtins()
    try:
        return _TOOL_PARSERS[name]
    except KeyError:
        raise UnknownParserError(
            f"invalid tool call parser: {name} (chose from {{ {', '.join(sorted(_TOOL_PARSERS))} }})"
        ) from None


def get_reasoning_parser(name: str) -> type[ReasoningParser]:
    _load_builtins()
    try:
        return _REASONING_PARSERS[name]
    except KeyError:
        raise UnknownParserError(
            f"invalid reasoning parser: {name} (chose from {{ {', '.join(sorted(_REASONING_PARSERS))} }})"
        ) from None
