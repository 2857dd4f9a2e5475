"""The EBNF grammar vLLM's Cohere Command parser puts in the `<|START_ACTION|>` structural tag.

The model writes its calls as a JSON list of `{"tool_call_id", "tool_name", "parameters"}`
objects. vLLM converts one such object schema per tool with xgrammar (reproduced by
`json_schema_ebnf`), prefixes every rule name of a tool's grammar with the tool's name (a
plain word-boundary text substitution, so it also reaches matching words inside literals), and
joins the tools under a list rule. The text layout (indentation included) is what vLLM sends.
"""

from __future__ import annotations

from typing import Any

from tokenfront.render.json_schema_ebnf import UnsupportedSchema, schema_to_ebnf

_RULE_NAME = r"\b(\w+)\s*::="
_HEADER = (
    "root ::= tools\n"
    '    tools ::= ws "[" ws tool (ws "," ws tool)* ws "]" ws\n'
    '    ws    ::= (" " | "\\t" | "\\n")*\n'
)


def tool_definitions(tools: list[Any]) -> list[tuple[str, dict[str, Any]]]:
    """(name, parameters) of each usable tool, as vLLM reads a request's `tools`."""
    found: list[tuple[str, dict[str, Any]]] = []
    for raw in tools:
        tool = raw.model_dump() if hasattr(raw, "model_dump") else raw
        if not isinstance(tool, dict):
            continue
        if tool.get("type") == "function" and isinstance(tool.get("function"), dict):
            tool = tool["function"]
        name = tool.get("name")
        if isinstance(name, str):
            params = tool.get("parameters")
            found.append((name, params if isinstance(params, dict) else {}))
    return found


def _call_schema(name: str, parameters: dict[str, Any]) -> dict[str, Any]:
    params = dict(parameters)
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "tool_call_id": {"type": "string", "pattern": "^[0-9]+$"},
            "tool_name": {"type": "string", "const": name},
            "parameters": params,
        },
    }
    for key in ("$defs", "definitions"):
        if key in params:
            schema[key] = params.pop(key)
    return schema


def _prefixed(name: str, grammar: str) -> str:
    if "\\" in name:  # vLLM substitutes with a replacement template; not reproduced
        raise UnsupportedSchema("tool name with a backslash")
    import regex  # vLLM's substitution semantics; ~0.3 s to import, so only when needed

    for rule in regex.findall(_RULE_NAME, grammar):
        grammar = regex.sub(rf"\b{regex.escape(rule)}\b", lambda _m, r=rule: name + r, grammar)
    return grammar


def tools_grammar(tools: list[tuple[str, dict[str, Any]]]) -> str:
    """The list-of-calls grammar. Raises `SchemaRejected` for the first tool xgrammar fails on
    (vLLM stops there), else `UnsupportedSchema` when a schema is not reproduced."""
    rules: dict[str, str] = {}
    outside: UnsupportedSchema | None = None
    for name, parameters in tools:
        try:
            grammar = schema_to_ebnf(_call_schema(name, parameters))
        except UnsupportedSchema as exc:
            outside = outside or exc  # a later tool may still be one xgrammar rejects
            continue
        rules[name] = f"{name} ::= {name}root\n{_prefixed(name, grammar)}"
    if outside is not None:
        raise outside
    return (
        _HEADER
        + "    tool ::= " + " | ".join(rules) + "\n"
        + "    " + "\n    ".join(rules.values()) + "\n"
        + "    "
    )
