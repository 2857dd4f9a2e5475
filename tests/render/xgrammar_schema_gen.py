"""Random JSON schemas per feature, for comparing `render/json_schema_ebnf.py` with xgrammar 0.2.8.

`scripts/fuzz_xgrammar_schema.py` runs them against xgrammar (recording venv) and writes the
fixture `tests/render/fixtures/xgrammar_schemas.jsonl.gz` that `test_json_schema_fixture.py`
replays without xgrammar. Every generator takes a `random.Random` and returns one schema; about
two thirds are wrapped in the Cohere call object, as vLLM converts them.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

Schema = dict[str, Any]
NAMES = ["a", "b", "city", "x y", "é", 'q"', "basic_string", "root", "tool_name", "n1", "it's", "a?b", "ab",
         "abc", "-", "]", "^", "\\", "[", "東京", "😀", "c\td"]
FORMATS = ["email", "date", "date-time", "time", "duration", "ipv4", "ipv6", "hostname", "uuid", "uri",
           "uri-reference", "uri-template", "json-pointer", "relative-json-pointer", "iri", "byte", "foo"]


def _int_value(rng: random.Random) -> Any:
    magnitude = rng.choice([1, 10, 100, 1000, 10**5, 10**9, 10**15])
    value = rng.randint(-magnitude, magnitude)
    roll = rng.random()
    if roll < 0.1:
        return float(value)
    if roll < 0.13:
        return value + 0.5
    if roll < 0.15:
        return rng.choice(["1", None, True])
    return value


def integer(rng: random.Random) -> Schema:
    schema: Schema = {"type": "integer"}
    for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        if rng.random() < 0.4:
            schema[key] = _int_value(rng)
    if "minimum" in schema and "maximum" in schema and rng.random() < 0.7 and all(
            isinstance(schema[k], int) and not isinstance(schema[k], bool) for k in ("minimum", "maximum")):
        low = schema["minimum"]
        schema["maximum"] = low + rng.choice([0, 1, 5, 9, 10, 99, 100, 1000, 12345, 10**7])
    if rng.random() < 0.25:
        schema["multipleOf"] = rng.choice([1, 2, 3, 7, 10, 12, 1024, 1025, 0, -2, 1.5, 2.0, "x"])
        if rng.random() < 0.5:
            schema.pop("exclusiveMinimum", None)
            schema.pop("exclusiveMaximum", None)
            base = rng.randint(-500, 500)
            schema.update(minimum=base, maximum=base + rng.choice([0, 3, 50, 200, 20000]))
    if not any(k in schema for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                                      "multipleOf")):
        schema["minimum"] = rng.randint(-99999, 99999)
    return schema


def _float_value(rng: random.Random) -> Any:
    roll = rng.random()
    if roll < 0.25:
        return rng.randint(-1000, 1000)
    if roll < 0.5:
        return round(rng.uniform(-100, 100), rng.randint(0, 3))
    if roll < 0.7:
        return rng.uniform(-1e4, 1e4)
    if roll < 0.72:
        return rng.choice(["1", None, True])
    return rng.choice([0.0, -0.0, 1e-7, 0.1, 0.5, 1e15, 123.4567891, 0.0000005, 0.9999999, 2.0000001, 1e300])


def number(rng: random.Random) -> Schema:
    schema: Schema = {"type": "number"}
    for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        if rng.random() < 0.35:
            schema[key] = _float_value(rng)
    bounds = [k for k in ("minimum", "exclusiveMinimum") if k in schema]
    tops = [k for k in ("maximum", "exclusiveMaximum") if k in schema]
    if bounds and tops and rng.random() < 0.8:
        low, high = schema[bounds[0]], schema[tops[0]]
        if isinstance(low, (int, float)) and isinstance(high, (int, float)) and not isinstance(low, bool) \
                and not isinstance(high, bool) and low > high:
            schema[bounds[0]], schema[tops[0]] = high, low
    if rng.random() < 0.1:
        schema["multipleOf"] = rng.choice([0.5, 2, 0, "x"])
    if not any(k in schema for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")):
        schema["minimum"] = _float_value(rng)
    return schema


def _json_value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.randrange(10 if depth < 2 else 7)
    if roll == 0:
        return rng.choice([0.1, 1.5, -2.25, 1e20, 1e-7, 3.0, -0.0, 2.5e300, 123456.789, 1e16])
    if roll == 1:
        return rng.choice([0, 7, -13, 2**40, 2**63 + 5, -(2**64)])
    if roll == 2:
        return rng.choice(["s", "東", "a\nb", 'q"', "\\", "\x01", "\x7f", "😀", "/", ""])
    if roll in (3, 4):
        return rng.choice([True, False, None])
    if roll in (5, 6):
        return rng.choice(["x", 1, None])
    if roll in (7, 8):
        return {rng.choice(NAMES): _json_value(rng, depth + 1) for _ in range(rng.randint(0, 3))}
    return [_json_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]


def enum_const(rng: random.Random) -> Schema:
    if rng.random() < 0.5:
        return {"const": _json_value(rng)}
    return {"enum": [_json_value(rng) for _ in range(rng.randint(1, 4))]}


def string_format(rng: random.Random) -> Schema:
    schema: Schema = {"type": "string", "format": rng.choice(FORMATS)}
    roll = rng.random()
    if roll < 0.15:
        schema["pattern"] = "^a+$"
    elif roll < 0.3:
        schema["minLength"] = rng.randint(0, 3)
    elif roll < 0.4:
        schema["maxLength"] = rng.randint(1, 5)
    return schema


def all_of(rng: random.Random) -> Schema:
    count = rng.choice([0, 1, 1, 1, 2, 3])
    options = [rng.choice([integer, number, enum_const, string_format, _plain, _nested])(rng) for _ in range(count)]
    schema: Schema = {"allOf": options}
    if rng.random() < 0.2:
        schema["description"] = "d"
    if rng.random() < 0.1:
        schema["type"] = "string"
    return schema


def _plain(rng: random.Random) -> Schema:
    return rng.choice([{}, {"type": "string"}, {"type": "integer"}, {"type": "number"}, {"type": "boolean"},
                       {"type": "null"}, {"type": "array"}, {"type": "object"}, {"$ref": "#/$defs/p"},
                       {"type": "array", "items": {"type": "string"}}])


def _nested(rng: random.Random) -> Schema:
    return {"type": "object", "properties": {"v": _leaf(rng)}, "required": rng.choice([[], ["v"]])}


def additional(rng: random.Random) -> Schema:
    names = rng.sample(NAMES, rng.randint(0, 5))
    obj: Schema = {"type": "object", "properties": {n: _small(rng) for n in names}}
    obj["additionalProperties"] = rng.choice([True, True, False, {}, {"type": "integer"}, {"type": "string"},
                                              {"type": "object", "properties": {"z": {"type": "null"}}},
                                              {"enum": [1, 2]}, integer(rng)])
    required = [n for n in names if rng.random() < 0.3]
    if required or rng.random() < 0.3:
        obj["required"] = required
    if rng.random() < 0.3:
        if rng.random() < 0.7:
            obj["properties"] = {}
            obj.pop("required", None)
        for key in ("minProperties", "maxProperties"):
            if rng.random() < 0.6:
                obj[key] = rng.choice([0, 1, 2, 3, 5, -1, 1.5])
    return obj


def array(rng: random.Random) -> Schema:
    schema: Schema = {"type": "array"} if rng.random() < 0.9 else {}
    if rng.random() < 0.7:
        schema["prefixItems"] = [rng.choice([_small, _leaf])(rng) for _ in range(rng.randint(0, 3))]
        if rng.random() < 0.03:
            schema["prefixItems"].append(rng.choice([False, True, 1]))
    roll = rng.random()
    if roll < 0.5:
        schema["items"] = rng.choice([_small, _leaf])(rng)
    elif roll < 0.6:
        schema["items"] = rng.choice([True, False, {}, 3])
    if rng.random() < 0.5:
        schema["minItems"] = rng.choice([0, 1, 2, 3, 4, -1, 1.0, True])
    if rng.random() < 0.5:
        schema["maxItems"] = rng.choice([0, 1, 2, 3, 4, 5, 7, -1, 2.0])
    if rng.random() < 0.1:
        schema["uniqueItems"] = True
    return schema


def odd(rng: random.Random) -> Schema:
    """Keyword shapes at the edges: errors, siblings that are not read, missing types."""
    return rng.choice([
        lambda: {"type": "object", "properties": {"a": _small(rng)}, "required": rng.choice([["b"], "a", ["a", "b"]])},
        lambda: {"type": "object", "properties": rng.choice([[], {"a": _small(rng)}]), "required": []},
        lambda: {"type": rng.choice([[], ["string", "null"], ["string", 3], "foo", 7, ["integer", "foo"]]),
                 **rng.choice([{}, {"minLength": 2}, {"minimum": 1}])},
        lambda: {rng.choice(["anyOf", "oneOf"]): rng.choice([[], [_small(rng)], "x", [_leaf(rng), _small(rng)]]),
                 **rng.choice([{}, {"type": "string"}])},
        lambda: {"type": "string", **rng.choice([{"pattern": "a", "minLength": 3}, {"minLength": -1},
                                                 {"maxLength": 0}, {"minLength": 4, "maxLength": 2},
                                                 {"minLength": 1.5}, {"maxLength": "3"},
                                                 {"format": "date", "minLength": 5, "maxLength": 1}])},
        lambda: {"minimum": 3} if rng.random() < 0.5 else {"format": "date"},
    ])()


def _small(rng: random.Random) -> Schema:
    return rng.choice([{"type": "string"}, {"type": "integer"}, {}, {"enum": ["x", 1]}, {"type": "boolean"},
                       {"type": "array", "items": {"type": "number"}}])


def _leaf(rng: random.Random) -> Schema:
    return rng.choice([integer, number, enum_const, string_format])(rng)


def mixed(rng: random.Random, depth: int = 0) -> Schema:
    """Objects, arrays and unions around the new leaves and plain types."""
    kind = rng.randrange(8 if depth < 3 else 3)
    if kind == 0:
        return _leaf(rng)
    if kind == 1:
        return {"type": rng.choice(["string", "integer", "number", "boolean", "null"])}
    if kind == 2:
        return {"type": "string", "pattern": "^[0-9]+$"} if rng.random() < 0.3 else integer(rng)
    if kind in (3, 4):
        names = rng.sample(NAMES, rng.randint(1, 4))
        obj: Schema = {"type": "object", "properties": {n: mixed(rng, depth + 1) for n in names}}
        required = [n for n in names if rng.random() < 0.4]
        if required:
            obj["required"] = required
        return obj
    if kind == 5:
        arr: Schema = {"type": "array", "items": mixed(rng, depth + 1)}
        if rng.random() < 0.4:
            arr["minItems"] = rng.randint(0, 2)
        return arr
    if kind == 6:
        return {"anyOf": [mixed(rng, depth + 1) for _ in range(rng.randint(1, 3))]}
    return {"type": "object", "properties": {"v": _leaf(rng), "w": _leaf(rng)}, "required": ["v"]}


_NOT_OBJECTS = [True, True, False, None, 0, 1.5, -0.0, 12345678901234567890, 1e100, "x", "a/b\"é\x7f",
                [], [None], [1, "a b", {"k": [2.5, None], "b": 1}]]


def non_object(rng: random.Random) -> Schema:
    """A boolean or a value that is no object where a schema is read: `true` is any value,
    the rest are refused with the value printed back."""
    value = rng.choice(_NOT_OBJECTS)
    return rng.choice([
        lambda: {"type": "object", "properties": {"a": value, "b": _small(rng)}},
        lambda: {"type": "array", "items": value},
        lambda: {"type": "array", "prefixItems": [_small(rng), value]},
        lambda: {rng.choice(["anyOf", "oneOf"]): [_small(rng), value]},
        lambda: {"allOf": [value]},
        lambda: {"type": "object", "properties": {"a": _small(rng)}, "additionalProperties": value},
        lambda: {"type": "object", "properties": {"a": {"type": "array", "items": {"anyOf": [value]}}}},
    ])()


FEATURES: dict[str, Callable[[random.Random], Schema]] = {
    "integer": integer,
    "number": number,
    "all_of": all_of,
    "additional": additional,
    "array": array,
    "odd": odd,
    "enum_const": enum_const,
    "string_format": string_format,
    "mixed": mixed,
    "non_object": non_object,
}


def call_object(parameters: Schema, name: str = "t") -> Schema:
    """The object vLLM's Cohere parser converts for one tool."""
    return {"type": "object", "properties": {
        "tool_call_id": {"type": "string", "pattern": "^[0-9]+$"},
        "tool_name": {"type": "string", "const": name},
        "parameters": parameters}}


def generate(feature: str, rng: random.Random) -> Schema:
    schema = FEATURES[feature](rng)
    if rng.random() < 0.66:
        schema = call_object({"type": "object", "properties": {"p": schema, "q": FEATURES[feature](rng)},
                              "required": ["p"]})
    schema["$defs"] = {"p": {"type": "string", "maxLength": 3}}
    return schema
