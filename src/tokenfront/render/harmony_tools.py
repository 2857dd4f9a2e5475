"""Harmony's developer-message tool listing: function tools as a TypeScript namespace.

gpt-oss prompts describe function tools as

    namespace functions {

    // DESCRIPTION
    type NAME = (_: PARAMETERS) => any;

    } // namespace functions

with PARAMETERS the JSON schema written as a TypeScript type (object properties one per line,
`?` for optional ones, descriptions and defaults as `//` comments, `oneOf` as `|` variants).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

NAMESPACE = "functions"


def lines(text: str) -> list[str]:
    """Text split into lines as Rust's `str::lines` does (no trailing empty line)."""
    if not text:
        return []
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    return [p[:-1] if p.endswith("\r") else p for p in parts]


def _is_enum(schema: Any) -> bool:
    values = schema.get("enum") if isinstance(schema, dict) else None
    return isinstance(values, list) and bool(values)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _default_comment(schema: dict[str, Any]) -> str:
    default = schema["default"]
    if isinstance(default, str):
        return f'default: "{default}"' if not _is_enum(schema) else f"default: {default}"
    return f"default: {_json(default)}"


def _nullable(schema: Any, rendered: str) -> str:
    if isinstance(schema, dict) and schema.get("nullable") is True and "null" not in rendered:
        return f"{rendered} | null"
    return rendered


def _get_str(schema: Any, key: str) -> str | None:
    value = schema.get(key) if isinstance(schema, dict) else None
    return value if isinstance(value, str) else None


def to_typescript(schema: Any, indent: str = "") -> str:
    """A JSON schema as a TypeScript type."""
    if not isinstance(schema, dict):
        return "any"
    one_of = schema.get("oneOf")
    if isinstance(one_of, list):
        out = ""
        for variant in one_of:
            out += f"\n{indent} | "
            out += _nullable(variant, to_typescript(variant, indent + "   "))
            comments = []
            desc = _get_str(variant, "description")
            if desc is not None:
                comments.append(desc)
            if isinstance(variant, dict) and "default" in variant:
                default = variant["default"]
                if isinstance(default, str) and not _is_enum(variant):
                    comments.append(f'default: "{default}"')
                else:
                    comments.append(f"default: {_json(default)}")
            if comments:
                out += " // " + " ".join(comments)
        return out
    kind = schema.get("type")
    if isinstance(kind, list):
        names = ["number" if t == "integer" else t for t in kind if isinstance(t, str)]
        if names:
            return " | ".join(names)
    if not isinstance(kind, str):
        return "any"
    if kind == "object":
        return _object(schema, indent)
    if kind == "string":
        values = schema.get("enum")
        if isinstance(values, list):
            quoted = [f'"{v}"' for v in values if isinstance(v, str)]
            if quoted:
                return " | ".join(quoted)
        return "string"
    if kind in ("number", "integer"):
        return "number"
    if kind == "boolean":
        return "boolean"
    if kind == "array":
        if "items" in schema:
            return f"{to_typescript(schema['items'], indent)}[]"
        return "Array<any>"
    return "any"


def _object(schema: dict[str, Any], indent: str) -> str:
    out = ""
    desc = _get_str(schema, "description")
    if desc is not None:
        out += f"{indent}// {desc}\n"
    out += "{\n"
    props = schema.get("properties")
    if isinstance(props, dict):
        required_list = schema.get("required")
        required = {r for r in required_list if isinstance(r, str)} if isinstance(required_list, list) else set()
        for key, val in props.items():
            out += _property(key, val, key in required, indent)
    return out + f"{indent}}}"


def _property(key: str, val: Any, required: bool, indent: str) -> str:
    out = ""
    mark = "" if required else "?"
    title = _get_str(val, "title")
    if title is not None:
        out += f"{indent}// {title}\n{indent}//\n"
    one_of = val.get("oneOf") if isinstance(val, dict) else None
    desc = _get_str(val, "description")
    if one_of is None and desc is not None:
        out += f"{indent}// {desc}\n"
    examples = val.get("examples") if isinstance(val, dict) else None
    if isinstance(examples, list) and examples:
        out += f"{indent}// Examples:\n"
        for example in examples:
            if isinstance(example, str):
                out += f'{indent}// - "{example}"\n'
    if isinstance(one_of, list):
        return out + _one_of_property(key, val, one_of, mark, indent)
    out += f"{indent}{key}{mark}: "
    out += _nullable(val, to_typescript(val, indent + "    ")) + ","
    if isinstance(val, dict) and "oneOf" not in val and "default" in val:
        out += " // " + _default_comment(val)
    return out + "\n"


def _one_of_property(key: str, val: dict[str, Any], variants: list[Any], mark: str, indent: str) -> str:
    out = ""
    prop_desc = _get_str(val, "description")
    first_desc = _get_str(variants[0], "description") if variants else None
    above = prop_desc is not None and prop_desc != first_desc
    if above:
        out += f"{indent}// {prop_desc}\n"
    if "default" in val:
        out += f"{indent}// {_default_comment(val)}\n"
    out += f"{indent}{key}{mark}:\n"
    for i, variant in enumerate(variants):
        out += f"{indent} | " + _nullable(variant, to_typescript(variant, indent + "   "))
        comments = []
        desc = _get_str(variant, "description")
        if not (i == 0 and above) and desc is not None and desc != prop_desc:
            comments.append(desc)
        if isinstance(variant, dict) and "default" in variant:
            comments.append(_default_comment(variant))
        if comments:
            out += " // " + " ".join(comments)
        out += "\n"
    return out + f"{indent},\n"


def tools_section(tools: Sequence[dict[str, Any]]) -> str:
    """The `# Tools` section for function tools (OpenAI `{"type": "function", ...}` dicts)."""
    parts = [f"## {NAMESPACE}\n"]
    if tools:
        parts.append(f"namespace {NAMESPACE} {{\n")
        for tool in tools:
            fn = tool.get("function") or {}
            parts.extend(f"// {line}" for line in lines(fn.get("description") or ""))
            params = fn.get("parameters")
            if params is not None:
                parts.append(f"type {fn.get('name', '')} = (_: {to_typescript(params)}) => any;\n")
            else:
                parts.append(f"type {fn.get('name', '')} = () => any;\n")
        parts.append(f"}} // namespace {NAMESPACE}")
    return "# Tools\n\n" + "\n".join(parts)
