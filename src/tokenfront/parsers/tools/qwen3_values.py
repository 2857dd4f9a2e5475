"""Qwen3-Coder argument values that vLLM's own tests type differently from vLLM 0.33.0.

Deliberate deviations (docs/deviations.md):

* `None` written for a parameter whose schema allows null is JSON null (0.33.0 keeps "None");
* an `object` / `array` parameter written as a Python literal (`{'k': 'v'}`), or as a JSON
  string that holds one, is decoded (0.33.0 keeps the string).

Everything else is left exactly as the codec converted it.
"""

from __future__ import annotations

import ast
import json
from json.encoder import encode_basestring  # type: ignore[attr-defined]
from typing import Any

from tokenfront.parsers.engines.last_read import LastDerived
from tokenfront.parsers.engines.schema_types import schema_types, tool_properties


def _python_literal(text: str, want: set[str]) -> Any:
    """`text` decoded as a Python dict / list literal when the schema wants one, else None."""
    value: Any = text.strip()
    for _ in range(2):  # a JSON (or Python) string holding the literal: decode twice
        if not isinstance(value, str):
            break
        stripped = value.strip()
        if not stripped or stripped[0] not in "{[\"'":
            return None
        try:
            value = json.loads(stripped)
        except ValueError:
            try:
                value = ast.literal_eval(stripped)
            except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
                return None
    if isinstance(value, dict) and "object" in want:
        return value
    if isinstance(value, list) and "array" in want:
        return value
    return None


def _fixed_value(value: Any, schema: Any) -> tuple[Any, bool]:
    if not isinstance(value, str) or not isinstance(schema, dict):
        return value, False
    want = _wanted(schema)
    if value.strip() == "None" and "null" in want:
        return None, True
    if want & {"object", "array"} and "string" not in want:
        try:
            json.loads(value)
        except ValueError:
            decoded = _python_literal(value, want)
            if decoded is not None:
                return decoded, True
        else:
            decoded = _python_literal(value, want)
            if decoded is not None and isinstance(json.loads(value), str):
                return decoded, True
    return value, False


def _movable_keys(properties: dict[str, Any]) -> list[str]:
    return [key for key, schema in properties.items() if _can_move(schema)]


_fixable_keys: LastDerived[list[str]] = LastDerived(_movable_keys)


def _wanted(schema: dict[str, Any]) -> set[str]:
    return {t.strip().lower() for t in schema_types(schema)}


def _can_move(schema: Any) -> bool:
    """Whether `_fixed_value` can move a value of this schema."""
    if not isinstance(schema, dict):
        return False
    want = _wanted(schema)
    return "null" in want or bool(want & {"object", "array"}) and "string" not in want


def fix_qwen3_values(args_json: str, tools: list[dict[str, Any]] | None, name: str) -> str:
    """Apply the test-asserted typing to a converted arguments object (text unchanged if none)."""
    if not tools or not name:
        return args_json
    properties = tool_properties(tools, name)
    if not isinstance(properties, dict):
        return args_json
    movable = _fixable_keys.of(properties)
    # Only a text holding `None`, a single quote or an escaped double quote is retyped, and
    # only when a key whose value can move is in it (as any string of it).
    if not movable or "None" not in args_json and "'" not in args_json and (
        '\\"' not in args_json
    ):
        return args_json
    if not any(encode_basestring(key) in args_json for key in movable):
        return args_json
    try:
        args = json.loads(args_json)
    except ValueError:
        return args_json
    if not isinstance(args, dict):
        return args_json
    changed = False
    for key, value in args.items():
        fixed, moved = _fixed_value(value, properties.get(key))
        if moved:
            args[key] = fixed
            changed = True
    return json.dumps(args, ensure_ascii=False) if changed else args_json
