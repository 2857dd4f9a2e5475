#!/usr/bin/env python3
"""Dev check: `render/json_schema_ebnf.py` against xgrammar's `Grammar.from_json_schema` text.

Run with the recording venv, which has xgrammar (never a tokenfront dependency):
    /work/vllm-venv/bin/python scripts/diff_xgrammar_schema.py [SEED] [COUNT]
Generates random schemas inside (and at the edge of) the reproduced JSON Schema subset, most
wrapped in the Cohere call object, and prints every schema whose text differs.
"""

from __future__ import annotations

import difflib
import json
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from tokenfront.render.json_schema_ebnf import UnsupportedSchema, schema_to_ebnf  # noqa: E402

NAMES = ["a", "b", "city", "x y", "é", 'q"', "basic_string", "root", "tool_name", "n1"]


def _scalar(rng: random.Random) -> Any:
    return rng.choice(["s", 1, -3, 0, True, False, None, "東", "a\nb"])


def _schema(rng: random.Random, depth: int = 0) -> dict[str, Any]:
    kind = rng.randrange(14 if depth < 3 else 6)
    if kind == 0:
        return {"type": rng.choice(["string", "integer", "number", "boolean", "null", "array", "object"])}
    if kind == 1:
        return {}
    if kind == 2:
        return {"enum": [_scalar(rng) for _ in range(rng.randint(1, 3))]}
    if kind == 3:
        return {"const": _scalar(rng), **({"type": "string"} if rng.random() < 0.3 else {})}
    if kind == 4:
        return {"type": "string", **rng.choice([
            {"pattern": rng.choice(["^[0-9]+$", "a+", "\\w{2,}", "^x.*$"])}, {"minLength": rng.randint(0, 3)},
            {"maxLength": rng.randint(1, 5)}, {"minLength": 1, "maxLength": 4}])}
    if kind == 5:
        types = rng.sample(["string", "integer", "number", "boolean", "null"], rng.randint(1, 3))
        return {"type": types, "description": "d"}
    if kind in (6, 7, 8):
        names = rng.sample(NAMES, rng.randint(0, 4))
        obj: dict[str, Any] = {"type": "object", "properties": {n: _schema(rng, depth + 1) for n in names}}
        required = [n for n in names if rng.random() < 0.4]
        if required or rng.random() < 0.5:
            obj["required"] = required
        return obj
    if kind == 9:
        arr: dict[str, Any] = {"type": "array", "items": _schema(rng, depth + 1)}
        if rng.random() < 0.5:
            arr["minItems"] = rng.randint(0, 3)
        if rng.random() < 0.5:
            arr["maxItems"] = arr.get("minItems", 0) + rng.randint(0, 3) or 1
        return arr
    if kind == 10:
        return {rng.choice(["anyOf", "oneOf"]): [_schema(rng, depth + 1) for _ in range(rng.randint(1, 3))]}
    if kind == 11:
        return {"type": "object", "additionalProperties": rng.choice([True, _schema(rng, depth + 1)])}
    if kind == 12:
        return {"$ref": "#/$defs/" + rng.choice(["p", "q"])}
    return {"type": "object", "properties": {"v": _schema(rng, depth + 1)}, "required": ["v"]}


def main() -> int:
    import xgrammar as xgr  # type: ignore[import-not-found]

    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 500
    rng = random.Random(seed)
    differ = unsupported = 0
    for _ in range(count):
        schema = _schema(rng)
        if rng.random() < 0.7:
            schema = {"type": "object", "properties": {
                "tool_call_id": {"type": "string", "pattern": "^[0-9]+$"},
                "tool_name": {"type": "string", "const": "t"}, "parameters": schema}}
        schema["$defs"] = {"p": {"type": "object", "properties": {"z": {"type": "integer"},
                                                                 "w": {"$ref": "#/$defs/q"}}},
                           "q": {"type": "array", "items": {"type": "string"}}}
        want = str(xgr.Grammar.from_json_schema(json.dumps(schema)))
        try:
            got = schema_to_ebnf(schema)
        except UnsupportedSchema:
            unsupported += 1
            continue
        if got != want:
            differ += 1
            print("=== differs:", json.dumps(schema, ensure_ascii=False))
            print("\n".join(difflib.unified_diff(want.splitlines(), got.splitlines(), "xgrammar", "tokenfront",
                                                 lineterm="", n=0)))
    print(f"{count} schemas, {differ} differ, {unsupported} outside the subset")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
