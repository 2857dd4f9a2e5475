"""Typing raw (string) tool-call arguments from the tool's JSON schema, as vLLM does.

XML-style formats carry every argument as text; the request's tool schema decides whether a
value becomes null, an integer, a number, a boolean, an object/array or stays a string.
"""

from __future__ import annotations

import json
import math
from typing import Any

from tokenfront.parsers.engines.json_scan import top_level_members
from tokenfront.parsers.engines.last_read import LastDerived, LastRead
from tokenfront.parsers.engines.object_text import ObjectText

_ALIASES = {
    "str": "string", "text": "string", "varchar": "string", "char": "string", "enum": "string",
    "int": "integer", "int32": "integer", "int64": "integer", "uint": "integer",
    "uint32": "integer", "uint64": "integer", "long": "integer", "short": "integer",
    "unsigned": "integer", "float": "number", "float32": "number", "float64": "number",
    "double": "number", "bool": "boolean", "dict": "object", "arr": "array", "list": "array",
    "sequence": "array",
}  # fmt: skip

_PRIORITY = ("null", "integer", "number", "boolean", "object", "array", "string")


def schema_types(schema: Any) -> list[str]:
    """Every type a schema admits (`type`, `enum` values, `anyOf`/`oneOf`/`allOf`); default string."""
    if not isinstance(schema, dict):
        return ["string"]
    types: set[str] = set()
    declared = schema.get("type")
    if isinstance(declared, str):
        types.add(declared)
    elif isinstance(declared, list):
        types.update(t for t in declared if isinstance(t, str))
    enum = schema.get("enum")
    if isinstance(enum, list):
        types.update(t for t in map(_json_type_of, enum) if t)
    for key in ("anyOf", "oneOf", "allOf"):
        choices = schema.get(key)
        if isinstance(choices, list):
            for choice in choices:
                types.update(schema_types(choice))
    return list(types) if types else ["string"]


def _json_type_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return ""


def is_finite_json(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except (ValueError, TypeError):
        return False
    return True


def coerce_text(value: str, types: str | list[str]) -> Any:
    """Best-effort conversion of one raw value; falls back to the string itself (same object)."""
    wanted = {
        _ALIASES.get(t.strip().lower(), t.strip().lower())
        for t in ([types] if isinstance(types, str) else types)
    }
    for candidate in _PRIORITY:
        if candidate not in wanted:
            continue
        if candidate == "null":
            if value.lower() == "null":
                return None
        elif candidate == "string":
            return value
        elif candidate == "integer":
            try:
                return int(value)
            except (ValueError, TypeError):
                pass
        elif candidate == "number":
            try:
                return int(value)
            except (ValueError, TypeError):
                pass
            try:
                number = float(value)
            except (ValueError, TypeError):
                continue
            if math.isfinite(number):
                return number if number != int(number) else int(number)
        elif candidate == "boolean":
            lowered = value.lower().strip()
            if lowered in ("true", "1"):
                return True
            if lowered in ("false", "0"):
                return False
        else:  # object / array
            try:
                parsed = json.loads(value)
            except (ValueError, TypeError):
                continue
            if is_finite_json(parsed):
                return parsed
    try:
        parsed = json.loads(value)
    except ValueError:
        return value
    return parsed if is_finite_json(parsed) else value


# Each property schema's last string value and what it became, for the tools of the last
# `type_arguments` call on this thread: a stream chunk types its open call's arguments once
# per piece, the earlier values again unchanged. Another request's tools start afresh.
_typed_values: LastDerived[dict[int, tuple[str, Any]]] = LastDerived(lambda tools: {})
# type_arguments: the typed members before the last top-level comma of the last arguments
# (by the tool's properties), and the scan that finds that comma.
_typed_members = LastRead()
_typed_scan = LastRead()
_IMMUTABLE = (str, int, float, bool, type(None))
Memo = dict[int, tuple[str, Any]]


def _coerce_string(value: str, schema: dict[str, Any], memo: Memo | None) -> tuple[Any, bool]:
    last = memo.get(id(schema)) if memo is not None else None
    if last is not None and last[0] == value:
        coerced = last[1]
    else:
        coerced = coerce_text(value, schema_types(schema))
        if memo is not None and isinstance(coerced, _IMMUTABLE):  # objects are typed in place
            memo[id(schema)] = (value, value if coerced is value else coerced)
    if coerced is value or (isinstance(coerced, str) and coerced == value):
        return value, False
    return coerced, True


def _coerce_value(value: Any, schema: dict[str, Any], memo: Memo | None) -> tuple[Any, bool]:
    if isinstance(value, str):
        return _coerce_string(value, schema, memo)
    if isinstance(value, dict):
        nested = schema.get("properties")
        if isinstance(nested, dict):
            return value, coerce_object(value, nested, memo)
        return value, False
    if isinstance(value, list):
        items = schema.get("items")
        changed = False
        if isinstance(items, dict):
            for i, item in enumerate(value):
                coerced, item_changed = _coerce_value(item, items, memo)
                if item_changed:
                    value[i] = coerced
                    changed = True
        return value, changed
    coerced = coerce_text(json.dumps(value, ensure_ascii=False), schema_types(schema))
    if type(coerced) is not type(value) or coerced != value:
        return coerced, True
    return value, False


def coerce_object(
    args: dict[str, Any], properties: dict[str, Any], memo: Memo | None = None
) -> bool:
    """Coerce `args` in place by the `properties` schemas; whether anything changed.
    `memo`: string values typed before, by schema (the schemas must outlive it)."""
    changed = False
    for key, value in args.items():
        prop = properties.get(key)
        if not isinstance(prop, dict):
            continue
        coerced, value_changed = _coerce_value(value, prop, memo)
        if value_changed:
            args[key] = coerced
            changed = True
    return changed


def function_properties(function: Any) -> dict[str, Any] | None:
    """The `properties` object of a function's parameters; None when there is none."""
    params = function.get("parameters") if isinstance(function, dict) else None
    properties = params.get("properties") if isinstance(params, dict) else None
    return properties if isinstance(properties, dict) else None


def tool_properties(tools: list[dict[str, Any]] | None, name: str) -> Any:
    """The `properties` of the named function tool's parameters ({} when unknown or no object)."""
    for tool in tools or ():
        if not isinstance(tool, dict):
            continue
        function = tool.get("function")
        if not isinstance(function, dict) or function.get("name") != name:
            continue
        return function_properties(function) or {}
    return {}


def has_tool(tools: list[dict[str, Any]] | None, name: str) -> bool:
    for tool in tools or ():
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict) and function.get("name") == name:
            return True
    return False


def type_arguments(args_json: str, tools: list[dict[str, Any]] | None, name: str) -> str:
    """Re-type a converted arguments object by the tool schema; unchanged text when nothing moves."""
    if not tools or not name:
        return args_json
    properties = tool_properties(tools, name)
    if not properties:
        return args_json
    memo = _typed_values.of(tools)
    boundary = top_level_members(args_json, _typed_scan)[2]
    prior = _typed_members.resumable(properties, args_json)
    start = len(_typed_members.text) if prior is not None else 0
    rest = args_json[start:]
    if prior is not None and rest.lstrip().startswith("}"):
        return args_json  # a comma before the closing brace: not JSON
    pairs: list[list[tuple[str, Any]]] = []  # every object's members; the outermost last

    def members(found: list[tuple[str, Any]]) -> dict[str, Any]:
        pairs.append(found)
        return dict(found)

    try:
        args = json.loads(rest if prior is None else "{" + rest, object_pairs_hook=members)
    except ValueError:
        return args_json
    if not isinstance(args, dict):
        return args_json
    typed, changed = _typed(args, properties, memo)
    values = typed
    if prior is not None:  # the members before: a later one of the same key wins
        changed = (prior[1] - typed.keys()) | changed
        values = {**prior[0], **typed}
    # The members' JSON texts, only once a value moved: kept from before when written there.
    text = _members_text(prior, typed) if changed else None
    if boundary > start and args:
        # The members before the new last comma: all but the last one, unless its key came
        # earlier (a dict keeps a key where it first came, so the last key is last only then).
        last_key = pairs[-1][-1][0]
        if next(reversed(args)) == last_key and (prior is None or last_key not in prior[0]):
            kept = dict(values)
            del kept[last_key]
            kept_text = None
            if text is not None:
                kept_text = text.copy()
                kept_text.pop_last()
            found = (kept, changed - {last_key}, kept_text)
            _typed_members.keep(properties, args_json[:boundary], found)
    return text.text() if text is not None else args_json


def _members_text(prior: Any, typed: dict[str, Any]) -> ObjectText:
    """The typed members' texts after those `prior` kept (written now if it kept none)."""
    if prior is not None and prior[2] is not None:
        text = prior[2].copy()
    else:
        text = ObjectText()
        for key, value in (prior[0] if prior is not None else {}).items():
            text[key] = value
    for key, value in typed.items():
        text[key] = value
    return text


def _typed(
    args: dict[str, Any], properties: dict[str, Any], memo: Memo
) -> tuple[dict[str, Any], set[str]]:
    """`args` typed in place by the `properties` schemas, and the keys whose value moved."""
    changed: set[str] = set()
    for key, value in args.items():
        prop = properties.get(key)
        if isinstance(prop, dict):
            coerced, moved = _coerce_value(value, prop, memo)
            if moved:
                args[key] = coerced
                changed.add(key)
    return args, changed


def streamable_string_keys(properties: Any) -> list[str] | None:
    """Keys whose values are always strings (safe to stream open); None without a schema."""
    if not properties or not isinstance(properties, dict):
        return None
    return [key for key, schema in properties.items() if set(schema_types(schema)) == {"string"}]


def coerce_arguments(arguments: str, function: dict[str, Any] | None) -> str:
    """Arguments JSON with values coerced to the tool's parameter types (unchanged if none apply)."""
    properties = function_properties(function)
    if not properties:
        return arguments
    try:
        args = json.loads(arguments)
    except ValueError:
        return arguments
    if not isinstance(args, dict):
        return arguments
    if coerce_object(args, properties):
        return json.dumps(args, ensure_ascii=False)
    return arguments
