"""`fix_qwen3_values` answers as its plain reading does (decode the whole text, retype each
value by its schema) while skipping that work for texts where no value can move."""

from __future__ import annotations

import json
import random
from typing import Any

from tokenfront.parsers.tools import qwen3_values
from tokenfront.parsers.tools.qwen3_values import fix_qwen3_values

KEYS = ("a", "b", "c", "é", 'q"k')
VALUES = ("v", "None", " None ", "it's", "{'k': 1}", "[True]", '{"k": "v"}', "[1, 2]", 'say "hi"',
          '"{\\"k\\": 1}"', "", "5", "null")  # fmt: skip
TYPES: tuple[Any, ...] = ("string", "integer", "object", "array", ["string", "null"],
                          ["object", "null"], "null", ["array", "string"], None)  # fmt: skip


def _plain(args_json: str, tools: list[dict[str, Any]], name: str) -> str:
    """The reading without shortcuts beyond the text gate the behaviour has always had."""
    if "None" not in args_json and "'" not in args_json and '\\"' not in args_json:
        return args_json
    args = json.loads(args_json)
    properties = tools[0]["function"]["parameters"]["properties"]
    changed = False
    for key, value in args.items():
        fixed, moved = qwen3_values._fixed_value(value, properties.get(key))
        if moved:
            args[key], changed = fixed, True
    return json.dumps(args, ensure_ascii=False) if changed else args_json


def test_the_shortcuts_change_no_answer() -> None:
    rng = random.Random(2414)
    for _ in range(3000):
        properties = {}
        for key in rng.sample(KEYS, rng.randrange(len(KEYS) + 1)):
            kind = rng.choice(TYPES)
            properties[key] = {} if kind is None else {"type": kind}
        tools = [{"type": "function", "function": {
            "name": "f", "parameters": {"type": "object", "properties": properties}}}]  # fmt: skip
        args = {rng.choice(KEYS): rng.choice(VALUES) for _ in range(rng.randrange(5))}
        text = json.dumps(args, ensure_ascii=False)
        assert fix_qwen3_values(text, tools, "f") == _plain(text, tools, "f"), (properties, text)


def test_a_nullable_parameter_written_none_becomes_null() -> None:
    tools = [{"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"x": {"type": ["string", "null"]}, "y": {"type": "string"}}}}}]  # fmt: skip
    assert fix_qwen3_values('{"x": "None", "y": "None"}', tools, "f") == '{"x": null, "y": "None"}'
    assert fix_qwen3_values('{"y": "None"}', tools, "f") == '{"y": "None"}'
