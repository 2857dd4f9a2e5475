"""MiniMax-M3 tool calls: namespaced `<invoke>` blocks whose parameters are nested elements.

    ]<]minimax[>[<tool_call>
    ]<]minimax[>[<invoke name="NAME">
    ]<]minimax[>[<KEY>VALUE]<]minimax[>[</KEY>
    ]<]minimax[>[</invoke>
    ]<]minimax[>[</tool_call>

An element holds text or child elements; repeated names collect into a list, and values are
typed from the tool schema while converting. Arguments are sent once per call (converted
values are not prefix-stable while elements arrive). Text after the tool block is dropped.
"""

from __future__ import annotations

import json
from typing import Any

from tokenfront.parsers.engines.schema_types import coerce_text, schema_types, tool_properties
from tokenfront.parsers.engines.xml_params import (
    E_CALL_END,
    E_CALL_START,
    S_ARGS,
    S_BETWEEN,
    S_CONTENT,
    S_NAME,
    S_PREAMBLE,
    Grammar,
    MarkupToolParser,
)
from tokenfront.parsers.registry import tool_parser

NS = "]<]minimax[>["
_OPEN, _CLOSE = f"{NS}<", f"{NS}</"
_MAX_DEPTH = 128
_MIXED = "$text"
_INVOKES = ("INVOKE_DQ", "INVOKE_SQ", "INVOKE_BARE")
_NAME_ENDS = ("NAME_END_DQ", "NAME_END_SQ", "NAME_END_BARE")

Element = Any  # str, or a list of (name, Element)


def _element(text: str, pos: int, depth: int) -> tuple[str, Element, int] | None:
    if depth > _MAX_DEPTH:
        return None
    name_start = pos + len(_OPEN)
    name_end = text.find(">", name_start)
    if name_end <= name_start:
        return None
    name = text[name_start:name_end]
    if name.startswith("/") or not name.strip():
        return None
    close = f"{_CLOSE}{name}>"
    pos = name_end + 1
    parts: list[str] = []
    children: list[tuple[str, Element]] = []
    while True:
        at = text.find(NS, pos)
        if at < 0:
            return None
        parts.append(text[pos:at])
        if text.startswith(close, at):
            pos = at + len(close)
            break
        if not text.startswith(_OPEN, at):
            return None
        child = _element(text, at, depth + 1)
        if child is None:
            return None
        children.append((child[0], child[1]))
        pos = child[2]
    body = "".join(parts)
    if not children:
        return name, body, pos
    if body.strip():
        field = _MIXED
        while any(n == field for n, _ in children):
            field = "$" + field
        children.append((field, body))
    return name, children, pos


def _params(raw: str) -> list[tuple[str, Element]]:
    """The parameter elements of one invoke body, up to the first malformed one."""
    out: list[tuple[str, Element]] = []
    pos = 0
    while True:
        while pos < len(raw) and raw[pos].isspace():
            pos += 1
        if not raw.startswith(_OPEN, pos):
            return out
        found = _element(raw, pos, 1)
        if found is None:
            return out
        out.append((found[0], found[1]))
        pos = found[2]


def _container(schema: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    types = schema.get("type")
    for kind in ("array", "object"):
        if types == kind or (isinstance(types, list) and kind in types):
            return kind, schema
    if types is None:
        if "items" in schema:
            return "array", schema
        if "properties" in schema or "additionalProperties" in schema:
            return "object", schema
    for key in ("anyOf", "oneOf"):
        for choice in schema.get(key) or ():
            if isinstance(choice, dict) and (found := _container(choice)):
                return found
    return None


def _convert(value: Element, schema: Any) -> Any:
    if not isinstance(schema, dict):
        schema = None
    container = _container(schema) if schema is not None else None
    if isinstance(value, str):
        if schema is None:
            return value
        types = schema_types(schema)
        if container is not None and "string" not in types and not value.strip():
            return [] if container[0] == "array" else {}
        return coerce_text(value, types)
    if container is not None and container[0] == "array":
        return [_convert(child, container[1].get("items")) for _, child in value]
    return _object(value, container[1] if container is not None else None)


def _object(elements: list[tuple[str, Element]], schema: dict[str, Any] | None) -> dict[str, Any]:
    properties = (schema or {}).get("properties") or {}
    additional = (schema or {}).get("additionalProperties")
    result: dict[str, Any] = {}
    repeated: set[str] = set()
    for name, element in elements:
        value = _convert(element, properties.get(name, additional))
        if name not in result:
            result[name] = value
        elif name in repeated:
            result[name].append(value)
        else:
            result[name] = [result[name], value]
            repeated.add(name)
    return result


class ElementCodec:
    """Schema-free conversion (the parser passes the schema through `convert_args`)."""

    def convert(self, raw: str, partial: bool, properties: Any = None) -> str:
        return json.dumps(
            _object(_params(raw), {"properties": properties or {}}), ensure_ascii=False
        )

    def open_value(self, raw: str) -> None:
        return None

    def extend(self, state: dict[str, Any], delta: str) -> str | None:
        return None


MINIMAX_M3 = Grammar(
    name="minimax_m3",
    terminals={
        "TOOL_START": f"{NS}<tool_call>", "TOOL_END": f"{NS}</tool_call>",
        "INVOKE_DQ": f'{NS}<invoke name="', "INVOKE_SQ": f"{NS}<invoke name='",
        "INVOKE_BARE": f"{NS}<invoke name=", "INVOKE_END": f"{NS}</invoke>",
        "NAME_END_DQ": '">', "NAME_END_SQ": "'>", "NAME_END_BARE": ">",
    },
    transitions={
        (S_CONTENT, "TOOL_START"): (S_PREAMBLE, ()),
        **{(s, t): (S_NAME, (E_CALL_START,)) for s in (S_PREAMBLE, S_BETWEEN) for t in _INVOKES},
        **{(S_NAME, t): (S_ARGS, ()) for t in _NAME_ENDS},
        (S_ARGS, "INVOKE_END"): (S_BETWEEN, (E_CALL_END,)),
        (S_PREAMBLE, "TOOL_END"): (S_BETWEEN, ()),
        (S_BETWEEN, "TOOL_END"): (S_BETWEEN, ()),
    },
    codec=ElementCodec(),
    stream_arg_deltas=False,
    strip_content_ws_with_tools=False,
)  # fmt: skip


@tool_parser("minimax_m3")
class MinimaxM3ToolParser(MarkupToolParser):
    name = "minimax_m3"
    grammar = MINIMAX_M3
    supports_required_and_named = False

    def convert_args(self, raw: str, partial: bool, name: str) -> str:
        properties = tool_properties(self.tools, name.strip())
        return ElementCodec().convert(raw, partial, properties)
