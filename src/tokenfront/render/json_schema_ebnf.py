"""A JSON schema as the EBNF text xgrammar 0.2.8 prints for `Grammar.from_json_schema(schema)`.

vLLM sends this text (inside a structural tag) for Cohere tool calls, so the render answer
must spell it exactly as xgrammar's converter, normalizer and printer do (default options:
any whitespace, strict mode). Only a subset of JSON Schema is reproduced: object properties
(required / optional, no additional properties, or additional properties without named ones),
arrays with `items` / `minItems` / `maxItems`, strings with `pattern`, length bounds or a
`format`, integers with bounds and `multipleOf`, `enum` / `const` of any JSON value,
`anyOf` / `oneOf`, lists of plain types and `$ref` into `$defs` / `definitions`. Anything else
raises `UnsupportedSchema`; a schema xgrammar itself rejects raises `SchemaRejected` with its
message.

Integer ranges and string formats are small grammars of their own in xgrammar (from a regular
expression), merged into the schema's grammar with a rule taking the first free `name_N` when
its name is taken (`_merge`); the format grammars are recorded data
(`json_schema_formats.json`, from `scripts/record_xgrammar_formats.py`), the range grammars are
built here (`json_schema_ranges.py`).

The text is built in three blocks, as xgrammar prints it: the built-in `basic_*` rules, the
rules the converter made (in the order their names were taken), then the helper rules its
normalizer split off (those of the built-ins first, then per rule in the same order).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

WS = "[ \\n\\r\\t]*"

_HEAD = """\
basic_escape ::= (([\\"\\\\/bfnrt]) | ("u" [A-Fa-f0-9] [A-Fa-f0-9] [A-Fa-f0-9] [A-Fa-f0-9]))
basic_string_sub ::= (("\\"") | ([^\\0-\\x1f\\"\\\\\\r\\n] basic_string_sub) | ("\\\\" basic_escape \
basic_string_sub)) (=([ \\n\\r\\t]* [,}\\]:]))
basic_any ::= ((basic_number) | (basic_string) | (basic_boolean) | (basic_null) | (basic_array) \
| (basic_object))
basic_integer ::= (("0") | (basic_integer_1 [1-9] [0-9]*))
basic_number ::= ((basic_number_1 basic_number_2 basic_number_3 basic_number_5))
basic_string ::= (("\\"" basic_string_sub))
basic_boolean ::= (("true") | ("false"))
basic_null ::= (("null"))
basic_array ::= (("[" WS basic_any basic_array_items{0, -1} WS "]") | ("[" WS "]"))
basic_object ::= (("{" WS basic_string WS ":" WS basic_any basic_object_properties{0, -1} WS "}") \
| ("{" WS "}"))
basic_number_digits ::= (([0-9]))
basic_array_items ::= ((WS "," WS basic_any))
basic_object_properties ::= ((WS "," WS basic_string WS ":" WS basic_any))
""".replace("WS", WS)

_TAIL = """\
basic_integer_1 ::= ("" | ("-"))
basic_number_1 ::= ("" | ("-"))
basic_number_2 ::= (("0") | ([1-9] [0-9]*))
basic_number_3 ::= ("" | ("." basic_number_digits{1, -1}))
basic_number_4 ::= ("" | ([+\\-]))
basic_number_5 ::= ("" | ([eE] basic_number_4 basic_number_digits{1, -1}))
"""

_PLAIN_TYPES = frozenset({"string", "integer", "number", "boolean", "null", "array", "object"})
# Keywords that never change the grammar.
_NOTES = frozenset({"description", "title", "default", "examples", "$comment", "deprecated",
                    "readOnly", "writeOnly", "$schema", "$id"})
_DEFS = frozenset({"$defs", "definitions"})  # not notes: a schema with them is no plain type
_INLINE: dict[str, list[list[str]]] = {
    "string": [['"\\""', "basic_string_sub"]],
    "boolean": [['"true"'], ['"false"']],
    "null": [['"null"']],
    "integer": [],
    "number": [],
}
_INT_KEYS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
_ANY_ALTERNATIVES = [["basic_number"], ["basic_string"], ["basic_boolean"], ["basic_null"], ["basic_array"],
                     ["basic_object"]]
_ADDL_ANY = "((basic_number) | (basic_string) | (basic_boolean) | (basic_null) | (basic_array) | (basic_object))"

Alternatives = list[list[str]]


class UnsupportedSchema(ValueError):
    """The schema uses JSON Schema features this converter does not reproduce."""


class SchemaRejected(ValueError):
    """xgrammar refuses the schema (the message is xgrammar's)."""


_INT64 = (-(2**63), 2**63 - 1)
_TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|\[(?:\\.|[^\]\\])*\]|[A-Za-z_][A-Za-z0-9_]*')
_HELPER = re.compile("\x00([0-9]+)\x00")
_FORMATS: dict[str, list[tuple[str, str]]] = {}


def _format_rules(name: str) -> list[tuple[str, str]] | None:
    if not _FORMATS:
        path = Path(__file__).with_name("json_schema_formats.json")
        for key, rules in json.loads(path.read_text(encoding="utf-8")).items():
            _FORMATS[key] = [(rule, body) for rule, body in rules]
    return _FORMATS.get(name)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and _INT64[0] <= value <= _INT64[1]


def literal(text: str) -> str:
    """An EBNF string literal as xgrammar prints it."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in '"\\\'?':
            out.append("\\" + ch)
        elif 0x20 <= code < 0x7F:
            out.append(ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif code < 0x100:
            out.append(f"\\x{code:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def _json_text(value: Any) -> str:
    """A JSON value as xgrammar (picojson) serializes it: compact, keys in their order, raw
    UTF-8 with control characters escaped, non-integers (and integers beyond int64) as `%.17g`."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, int) and _INT64[0] <= value <= _INT64[1]:
        return str(value)
    if isinstance(value, (int, float)):
        number = float(value)
        if number != number or number in (float("inf"), float("-inf")):
            raise UnsupportedSchema("non-finite number")
        return f"{number:.17g}"
    if isinstance(value, list):
        return "[" + ",".join(_json_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(_json_text(str(k)) + ":" + _json_text(v) for k, v in value.items()) + "}"
    if isinstance(value, str):
        out = ['"']
        short = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r",
                 "\t": "\\t"}
        for ch in value:
            if ch in short:
                out.append(short[ch])
            elif ord(ch) < 0x20 or ord(ch) == 0x7F:
                out.append(f"\\u{ord(ch):04x}")
            else:
                out.append(ch)
        out.append('"')
        return "".join(out)
    raise UnsupportedSchema(f"enum / const value {value!r}")


def _int_bound(value: Any) -> int:
    """An integer bound as xgrammar reads it (a whole number within int64)."""
    if not _number(value):
        raise SchemaRejected("Value must be a number")
    if isinstance(value, float) and value != int(value):
        raise SchemaRejected("Integer constraint must be a whole number")
    if not _INT64[0] < value < _INT64[1]:
        raise UnsupportedSchema("integer bound at the int64 limit")
    return int(value)


def _multiple_of(value: Any) -> int | None:
    """An integer `multipleOf` xgrammar uses (it ignores fractions and values above 1024)."""
    if value is None:
        return None
    if not _number(value):
        raise SchemaRejected("Value must be a number")
    if value <= 0:
        raise SchemaRejected("multipleOf must be greater than 0")
    return int(value) if value == int(value) and value <= 1024 else None


def _class_char(byte: int) -> str:
    """One byte inside a printed character class."""
    if chr(byte) in "\\]-\"'?":
        return "\\" + chr(byte)
    if chr(byte) in "\t\n\r":
        return {9: "\\t", 10: "\\n", 13: "\\r"}[byte]
    return chr(byte) if byte < 0x80 else f"\\x{byte:02x}"


def _byte_literal(byte: int) -> str:
    return literal(chr(byte)) if byte < 0x80 else f'"\\x{byte:02x}"'


def _choices(alternatives: Alternatives) -> str:
    return "(" + " | ".join("(" + " ".join(a) + ")" if a else '""' for a in alternatives) + ")"


@dataclass
class _Rule:
    name: str
    body: str = ""
    helpers: list[tuple[int, str]] = field(default_factory=list)


class _Converter:
    def __init__(self, root_schema: dict[str, Any]) -> None:
        self.root_schema = root_schema
        self.rules: list[_Rule] = []
        self.names: set[str] = set()
        self.defs: dict[str, str] = {}
        self.def_schemas: list[tuple[Any, str]] = []  # a schema equal to a resolved one reuses it
        self.helper_count = 0
        # per base name, an index below which every `name_N` is taken (names are only added)
        self.taken_below: dict[str, int] = {}

    # ---- rules ------------------------------------------------------------------------------
    def _reserve(self, name: str) -> _Rule:
        """A converter rule; a taken name gets the first free `name_N`, as xgrammar allocates."""
        name = self._free(name)
        rule = _Rule(name)
        self.names.add(name)
        self.rules.append(rule)
        return rule

    def _helper(self, owner: _Rule, body: str) -> str:
        """A rule the normalizer splits off `owner`; named `owner_N` (the first free N) once
        every converter rule is known, so its name is a placeholder until then."""
        self.helper_count += 1
        owner.helpers.append((self.helper_count, body))
        return f"\x00{self.helper_count}\x00"

    def _free(self, name: str) -> str:
        if name not in self.names:
            return name
        index = self.taken_below.get(name, 1)
        while f"{name}_{index}" in self.names:
            index += 1
        self.taken_below[name] = index
        return f"{name}_{index}"

    def _merge(self, rules: list[tuple[str, str]]) -> str:
        """Add a separately built grammar (its first rule is its root); returns the root's name."""
        table: dict[str, str] = {}
        for name, _ in rules:
            table[name] = self._free(name)
            self.names.add(table[name])
        for name, body in rules:
            rule = _Rule(table[name], _TOKEN.sub(lambda m: table.get(m.group(0), m.group(0)), body))
            self.rules.append(rule)
        return table[rules[0][0]]

    def text(self) -> str:
        """The printed grammar: built-ins, converter rules, built-in helpers, rule helpers."""
        final: dict[str, str] = {}
        helpers: list[tuple[str, str]] = []
        for rule in self.rules:
            for key, body in rule.helpers:
                name = self._free(rule.name)
                self.names.add(name)
                final[str(key)] = name
                helpers.append((name, body))
        lines = [_HEAD, *(f"{r.name} ::= {r.body}\n" for r in self.rules), _TAIL,
                 *(f"{name} ::= {body}\n" for name, body in helpers)]
        return _HELPER.sub(lambda m: final[m.group(1)], "".join(lines))

    def _define(self, name: str, schema: Any) -> str:
        rule = self._reserve(name)
        rule.body = _choices(self._visit(schema, rule))
        return name

    # ---- values -----------------------------------------------------------------------------
    @staticmethod
    def _plain(schema: Any) -> str | None:
        """The built-in rule of a schema that only names a plain type (or nothing)."""
        if schema is True:
            return None  # any value, written out in a rule of its own
        if schema is False:
            raise SchemaRejected("Schema 'false' cannot accept any value")
        if not isinstance(schema, dict):
            raise SchemaRejected(f"Schema should be an object or bool, but got {_json_text(schema)}")
        keys = set(schema) - _NOTES
        if not keys:
            return "basic_any"
        if keys == {"type"} and isinstance(schema["type"], str) and schema["type"] in _PLAIN_TYPES:
            return f"basic_{schema['type']}"
        return None

    def _value(self, schema: Any, name: str) -> str:
        plain = self._plain(schema)
        if plain is not None:
            return plain
        for resolved, rule_name in self.def_schemas:
            if resolved == schema:
                return rule_name
        return self._define(name, schema)

    def _visit(self, schema: Any, rule: _Rule, direct: bool = False) -> Alternatives:
        """The rule's alternatives; `direct`: written out even where xgrammar would refer to a
        built-in rule (a schema generated in place, as the one schema of an `allOf`)."""
        plain = self._plain(schema)
        if schema is True:
            return _ANY_ALTERNATIVES
        if plain is not None and rule.name == "root" and not direct:
            return [[plain]]
        if plain == "basic_any":
            if direct:
                return _ANY_ALTERNATIVES
            raise UnsupportedSchema("an empty schema as a named definition")
        keys = set(schema) - _NOTES - _DEFS
        if "$ref" in keys:  # other keywords next to it are not read
            return [[self._ref(schema["$ref"])]]
        if "const" in keys:
            return [[literal(_json_text(schema["const"]))]]
        if "enum" in keys:
            values = schema["enum"]
            if not isinstance(values, list):
                raise SchemaRejected("enum must be an array")
            if not values:
                raise SchemaRejected("enum array must not be empty")
            return [[literal(_json_text(v))] for v in values]
        for key in ("anyOf", "oneOf"):  # other keywords next to them are not read
            if key in keys:
                if not isinstance(schema[key], list):
                    raise SchemaRejected(f"{key} must be an array")
                return [[self._value(s, f"{rule.name}_case_{i}")] for i, s in enumerate(schema[key])] or [[]]
        if "allOf" in keys:
            return self._all_of(schema["allOf"], rule)
        kind = schema.get("type")
        if isinstance(kind, list):
            if not kind:
                rest = {k: v for k, v in schema.items() if k != "type"}
                return [[self._value(rest, f"{rule.name}_type_0")]]
            found: Alternatives = []
            for i, each in enumerate(kind):
                if not isinstance(each, str):
                    raise SchemaRejected("type must be a string or an array of strings")
                found.append([self._value({**schema, "type": each}, f"{rule.name}_type_{i}")])
            return found
        if kind is not None and not isinstance(kind, str):
            raise SchemaRejected("Type should be a string")
        if kind is not None and kind not in _PLAIN_TYPES:
            raise SchemaRejected(f'Unsupported type "{kind}"')
        if (keys == {"type"} and kind in _INLINE) or kind in ("boolean", "null"):
            return self._inline(kind, rule)
        if kind is None:  # no type: the keywords decide, as xgrammar reads them
            if keys & {"properties", "additionalProperties"}:
                kind = "object"
            elif keys & {"items", "prefixItems"}:
                kind = "array"
            else:
                return _ANY_ALTERNATIVES
        if kind == "string":
            return self._string(schema, keys, rule)
        if kind == "integer":
            return self._integer(schema, keys, rule)
        if kind == "number":
            return self._number(schema, keys, rule)
        if kind == "array":
            return self._array(schema, keys, rule)
        if kind == "object":
            return self._object(schema, keys, rule)
        raise UnsupportedSchema(f"keywords {sorted(keys)}")

    def _all_of(self, schemas: Any, rule: _Rule) -> Alternatives:
        """One schema is written in place; several (or none) give any value (xgrammar does not
        intersect them yet), after each is checked as xgrammar parses it."""
        if not isinstance(schemas, list):
            raise SchemaRejected("allOf must be an array")
        if len(schemas) == 1:
            # Written into this rule, but the rules it makes are named after `<rule>_case_0`.
            return self._visit(schemas[0], _Rule(f"{rule.name}_case_0", helpers=rule.helpers), direct=True)
        for each in schemas:
            _Converter(self.root_schema)._define("root", each)
        return _ANY_ALTERNATIVES

    def _inline(self, kind: str, rule: _Rule) -> Alternatives:
        """A plain type written out in a rule of its own (what the `basic_*` rules hold)."""
        if kind == "integer":
            return [[literal("0")], [self._helper(rule, '("" | ("-"))'), "[1-9]", "[0-9]*"]]
        if kind == "number":
            digits = self._reserve(f"{rule.name}_digits")
            digits.body = "(([0-9]))"
            sign = self._helper(rule, '("" | ("-"))')
            whole = self._helper(rule, '(("0") | ([1-9] [0-9]*))')
            fraction = self._helper(rule, f'("" | ("." {digits.name}{{1, -1}}))')
            exp_sign = self._helper(rule, '("" | ([+\\-]))')
            exponent = self._helper(rule, f'("" | ([eE] {exp_sign} {digits.name}{{1, -1}}))')
            return [[sign, whole, fraction, exponent]]
        return _INLINE[kind]

    def _integer(self, schema: dict[str, Any], keys: set[str], rule: _Rule) -> Alternatives:
        multiple = _multiple_of(schema.get("multipleOf"))
        bounds = {key: _int_bound(schema[key]) for key in _INT_KEYS if key in schema}
        if bounds.get("exclusiveMinimum") == _INT64[1]:
            raise SchemaRejected("exclusiveMinimum would cause integer overflow")
        if bounds.get("exclusiveMaximum") == _INT64[0]:
            raise SchemaRejected("exclusiveMaximum would cause integer underflow")
        lows = [v for v in (bounds.get("minimum"),) if v is not None]
        if "exclusiveMinimum" in bounds:
            lows.append(bounds["exclusiveMinimum"] + 1)
        highs = [v for v in (bounds.get("maximum"),) if v is not None]
        if "exclusiveMaximum" in bounds:
            highs.append(bounds["exclusiveMaximum"] - 1)
        start, end = (max(lows) if lows else None), (min(highs) if highs else None)
        if (_INT64[0] if start is None else start) > (_INT64[1] if end is None else end):
            raise SchemaRejected("Invalid range: minimum greater than maximum")
        if multiple is not None and (start is not None or end is not None):
            if start is None or end is None or end - start + 1 > 10000:
                multiple = None  # xgrammar ignores multipleOf next to a half-open / wide range
            elif not any(v % multiple == 0 for v in range(start, end + 1)):
                raise SchemaRejected("range contains no multipleOf value")
        if multiple is not None and start is not None and end is not None:
            return [[literal(str(v))] for v in range(start, end + 1) if v % multiple == 0]
        if multiple is not None:
            states = [self._reserve(f"{rule.name}_multiple_of_{multiple}_mod_{k}") for k in range(multiple)]
            for k, state in enumerate(states):
                moves = [[literal(str(d)), states[(k * 10 + d) % multiple].name] for d in range(10)]
                state.body = _choices(([[]] if k == 0 else []) + moves)
            sign = self._helper(rule, '("" | ("-"))')
            first = self._helper(rule, _choices([[literal(str(d)), states[d % multiple].name]
                                                 for d in range(1, 10)]))
            return [[literal("0")], [sign, first]]
        if start is None and end is None:
            return self._inline("integer", rule)
        from tokenfront.render.json_schema_ranges import integer_range  # only when a range appears

        return [[self._merge(integer_range(start, end))]]

    def _number(self, schema: dict[str, Any], keys: set[str], rule: _Rule) -> Alternatives:
        if "multipleOf" in schema:  # checked, then ignored by xgrammar
            if not _number(schema["multipleOf"]):
                raise SchemaRejected("Value must be a number")
            if schema["multipleOf"] <= 0:
                raise SchemaRejected("multipleOf must be greater than 0")
        bounds: dict[str, float] = {}
        for key in _INT_KEYS:
            if key in schema:
                if not _number(schema[key]):
                    raise SchemaRejected("Value must be a number")
                bounds[key] = float(schema[key])
        low, high = bounds.get("minimum"), bounds.get("maximum")
        low_x, high_x = bounds.get("exclusiveMinimum"), bounds.get("exclusiveMaximum")
        if ((low is not None and high is not None and low > high)
                or (low is not None and high_x is not None and low >= high_x)
                or (low_x is not None and high is not None and low_x >= high)
                or (low_x is not None and high_x is not None and low_x >= high_x)):
            raise SchemaRejected("Invalid range: empty range")
        start, strict_start = low, False
        if low_x is not None and (start is None or low_x >= start):
            start, strict_start = low_x, True
        end, strict_end = high, False
        if high_x is not None and (end is None or high_x <= end):
            end, strict_end = high_x, True
        if start is None and end is None:
            return self._inline("number", rule)
        if any(v != v or v in (float("inf"), float("-inf")) for v in (start, end) if v is not None):
            raise UnsupportedSchema("non-finite bound")
        from tokenfront.render.json_schema_ranges import number_range  # only when a range appears

        return [[self._merge(number_range(start, end, strict_start, strict_end))]]

    def _ref(self, ref: Any) -> str:
        if not isinstance(ref, str):
            raise UnsupportedSchema("$ref")
        for prefix, rule_prefix in (("#/$defs/", "defs_"), ("#/definitions/", "definitions_")):
            if ref.startswith(prefix):
                key = ref[len(prefix):]
                table = self.root_schema.get(prefix[2:-1])
                if not isinstance(table, dict) or key not in table or "/" in key or "~" in key:
                    raise UnsupportedSchema(f"$ref {ref!r}")
                name = rule_prefix + key
                if ref not in self.defs:
                    self.defs[ref] = name
                    self._define(name, table[key])
                    self.def_schemas.append((table[key], name))
                return self.defs[ref]
        raise UnsupportedSchema(f"$ref {ref!r}")

    def _string(self, schema: dict[str, Any], keys: set[str], rule: _Rule) -> Alternatives:
        quote = literal('"')
        low, high = schema.get("minLength", 0), schema.get("maxLength", -1)
        if "minLength" in schema and not (_integer(low) and low <= 2**31 - 1):
            raise SchemaRejected("minLength must be an integer not exceeding 2147483647")
        if "maxLength" in schema and not _integer(high):
            raise SchemaRejected("maxLength must be an integer")
        if not -(2**31) <= low or not high <= 2**31 - 1:
            raise UnsupportedSchema("string length beyond 32 bits")
        if high != -1 and low > high:
            raise SchemaRejected(f"minLength {low} is greater than maxLength {high}")
        fmt = schema.get("format")
        if fmt is not None and not isinstance(fmt, str):
            raise UnsupportedSchema("format")
        found = _format_rules(fmt) if fmt is not None else None
        if found is not None:  # xgrammar then ignores pattern and length bounds
            return [[quote, self._merge(found), quote]]
        if "pattern" in keys:  # and then length bounds
            pattern = schema["pattern"]
            if (not isinstance(pattern, str) or '"' in pattern or "\\\\" in pattern
                    or not all(0x20 <= ord(c) < 0x7F for c in pattern)):
                raise UnsupportedSchema("pattern")
            regex = self._helper(rule, f"Regex({literal(pattern)}, json_string=true)")
            return [[quote, regex, quote]]
        if (low, high) == (0, -1):
            return self._inline("string", rule)
        char = '[^\\"\\\\\\r\\n]'
        if low < 0:
            pass
        elif (low, high) == (0, 0):
            return [[quote, quote]]
        elif (low, high) == (0, 1):
            return [[quote, self._helper(rule, _choices([[], [char]])), quote]]
        elif (low, high) == (1, 1):
            return [[quote, char, quote]]
        chars = self._reserve(f"{rule.name}_characters")
        chars.body = _choices([[char]])
        return [[quote, f"{chars.name}{{{low}, {high}}}", quote]]

    def _array(self, schema: dict[str, Any], keys: set[str], rule: _Rule) -> Alternatives:
        if keys & {"unevaluatedItems", "minContains"}:
            raise UnsupportedSchema(f"array keywords {sorted(keys)}")
        prefix = schema.get("prefixItems", [])
        if not isinstance(prefix, list):
            raise SchemaRejected("prefixItems must be an array")
        firsts: list[str] = []
        for i, each in enumerate(prefix):
            if each is False:
                raise SchemaRejected("prefixItems contains false")
            if not isinstance(each, dict):
                raise SchemaRejected("prefixItems must be an array of objects or booleans")
            firsts.append(self._value(each, f"{rule.name}_item_{i}"))
        items = schema.get("items", False)  # strict mode: no items unless given
        if not isinstance(items, (bool, dict)):
            raise SchemaRejected("items must be a boolean or an object")
        item = None
        if items is True:
            any_value = self._reserve(f"{rule.name}_additional")
            any_value.body = _ADDL_ANY
            item = any_value.name
        elif items is not False:
            item = self._value(items, f"{rule.name}_additional")
        low, high = schema.get("minItems", 0), schema.get("maxItems", -1)
        if not _integer(low):
            raise SchemaRejected("minItems must be an integer")
        low = max(low, 0)
        if "maxItems" in schema and (not _integer(high) or high < 0):
            raise SchemaRejected("maxItems must be a non-negative integer")
        count = len(firsts)
        if high != -1 and low > high:
            raise SchemaRejected(f"minItems is greater than maxItems: {low} > {high}")
        if high != -1 and high < count:
            raise SchemaRejected(f"maxItems is less than the number of prefixItems: {high} < {count}")
        if item is None and count < low:
            raise SchemaRejected("minItems is greater than the number of prefixItems, but additional items "
                                 f"are not allowed: {low} > {count}")
        empty = [literal("["), WS, literal("]")]
        if not firsts:
            if item is None or high == 0:
                return [empty]
            more = [WS, literal(","), WS, item]
            full = [literal("["), WS, item, *self._repeat(rule, "items", more, max(low - 1, 0),
                                                          -1 if high == -1 else high - 1), WS, literal("]")]
            return [full, empty] if low == 0 else [full]
        sep = [WS, literal(","), WS]
        tail: list[str] = []
        optional_one = False  # one optional item more: a helper of the rule that holds it
        if item is not None and high != count:
            bounds = (max(low - count, 0), -1 if high == -1 else high - count)
            optional_one = bounds == (0, 1)
            if not optional_one:
                tail = self._repeat(rule, "additional_items", [*sep, item], *bounds)
        extra_item = [*sep, item] if item is not None else []
        if optional_one and low >= count:
            tail = [self._helper(rule, _choices([[], extra_item]))]
        rest: list[str] = list(tail)
        for i in range(count - 1, low - 1, -1):
            suffix = self._reserve(f"{rule.name}_suffix_{i}")
            if optional_one and i == count - 1:
                rest = [self._helper(suffix, _choices([[], extra_item]))]
            suffix.body = _choices([[], [*(sep if i else []), firsts[i], *rest]])
            rest = [suffix.name]
        needed: list[str] = []
        for i in range(min(low, count)):
            needed += [*(sep if i else []), firsts[i]]
        return [[literal("["), WS, *needed, *rest, WS, literal("]")]]

    def _repeat(self, rule: _Rule, suffix: str, more: list[str], low: int, high: int) -> list[str]:
        """`more` repeated low..high times (high -1: unbounded), as xgrammar writes it."""
        if (low, high) == (1, 1):
            return more
        if (low, high) == (0, 1):
            return [self._helper(rule, _choices([[], more]))]
        if low < 0:
            pass
        elif (low, high) == (0, 0):
            return []
        repeated = self._reserve(f"{rule.name}_{suffix}")
        repeated.body = _choices([more])
        return [f"{repeated.name}{{{low}, {high}}}"]

    def _object(self, schema: dict[str, Any], keys: set[str], rule: _Rule) -> Alternatives:
        if keys & {"patternProperties", "propertyNames", "unevaluatedProperties"}:
            raise UnsupportedSchema(f"object keywords {sorted(keys)}")
        props = schema.get("properties", {})
        if not isinstance(props, dict):
            raise SchemaRejected("properties must be an object")
        names = list(props)
        entries = [[literal(_json_text(k)), WS, literal(":"), WS,
                    self._value(props[k], f"{rule.name}_prop_{i}")] for i, k in enumerate(names)]
        required = schema.get("required", [])
        if not isinstance(required, list):
            raise SchemaRejected("required must be an array")
        if not all(isinstance(r, str) for r in required):
            raise UnsupportedSchema("required name that is not a string")
        extra = schema.get("additionalProperties", False)
        if not isinstance(extra, (bool, dict)):
            self._plain(extra)  # refused as any schema that is no object
        if isinstance(extra, dict) and keys & {"minProperties", "maxProperties"}:
            _Converter(self.root_schema)._define("root", extra)  # parsed before the counts are checked
        low, high = self._property_count(schema, extra is not False, len(set(required)), len(names))
        if props and (low, high) != (0, -1):
            raise UnsupportedSchema("minProperties / maxProperties next to properties")
        open_, close = literal("{"), literal("}")
        empty = [open_, WS, close]
        if high == 0:  # xgrammar makes no rule for the value then
            return [empty]
        value_name = None
        if extra is not False:
            if extra is True:
                value = self._reserve(f"{rule.name}_addl")
                value.body = _ADDL_ANY
                value_name = value.name
            else:
                value_name = self._value(extra, f"{rule.name}_addl")
        if value_name is not None and not props:
            pair = ["basic_string", WS, literal(":"), WS, value_name]
            more = self._repeat(rule, "properties", [WS, literal(","), WS, *pair], max(low - 1, 0),
                                -1 if high == -1 else high - 1)
            full = [open_, WS, *pair, *more, WS, close]
            return [full, empty] if low == 0 else [full]
        if not props:
            return [empty]
        needed = [k in required for k in names]
        count = len(names)
        tails: dict[int, str] = {}  # rest after property i-1, for i in 1..count (count: the extras)
        other: list[str] = []
        if value_name is not None:
            other = [self._key_rule(names, rule), WS, literal(":"), WS, value_name]
            repeated = self._reserve(f"{rule.name}_additional_properties")
            repeated.body = _choices([[WS, literal(","), WS, *other]])
            last = self._reserve(f"{rule.name}_part_{count - 1}")
            last.body = _choices([[f"{repeated.name}{{0, -1}}"]])
            tails[count] = last.name
        for i in range(count - 1, 0, -1):
            part = self._reserve(f"{rule.name}_part_{i - 1}")
            after = [tails[i + 1]] if i + 1 in tails else []
            take = [WS, literal(","), WS, *entries[i], *after]
            part.body = _choices([take] if needed[i] else [after, take])
            tails[i] = part.name
        firsts: Alternatives = []
        for i in range(count):
            firsts.append([*entries[i], *([tails[i + 1]] if i + 1 in tails else [])])
            if needed[i]:
                break
        if other and not required:  # (a required name without a property counts too)
            firsts.append([*other, tails[count]])
        if len(firsts) == 1:
            inner = firsts[0]
        else:
            inner = [self._helper(rule, _choices(firsts))]
        alternatives = [[open_, WS, *inner, WS, close]]
        if not required:
            alternatives.append(empty)
        return alternatives

    @staticmethod
    def _property_count(schema: dict[str, Any], extra: bool, required: int, named: int) -> tuple[int, int]:
        """`minProperties` / `maxProperties` as xgrammar checks them."""
        bounds = []
        for key, default in (("minProperties", 0), ("maxProperties", -1)):
            value = schema.get(key, default)
            if key in schema and not _integer(value):
                raise SchemaRejected(f"{key} must be an integer")
            if key in schema and value < 0:
                raise SchemaRejected(f"{key} must be a non-negative integer")
            bounds.append(value)
        low, high = bounds
        if high != -1 and low > high:
            raise SchemaRejected(f"minProperties is greater than maxProperties: {low} > {high}")
        if high != -1 and required > high:
            raise SchemaRejected(f"maxProperties is less than the number of required properties: {high} < {required}")
        if not extra and low > named:
            raise SchemaRejected("minProperties is greater than the number of properties, but additional "
                                 f"properties aren't allowed: {low} > {named}")
        return low, high

    def _key_rule(self, names: list[str], rule: _Rule) -> str:
        """A JSON string other than the named properties: a character trie over their names."""
        key = self._reserve(f"{rule.name}_addl_key")
        trie: dict[int, Any] = {}
        for name in names:
            data = name.encode("utf-8")
            if any((b < 0x20 and b not in (9, 10, 13)) or b == 0x7F for b in data):
                raise UnsupportedSchema("control character in a property name")
            node = trie
            for byte in data:
                node = node.setdefault(byte, {})
            node[-1] = {}  # end of a name

        def helper(node: dict[int, Any]) -> str:
            edges = sorted(b for b in node if b >= 0)
            subs = [helper(node[b]) for b in edges]
            alternatives: Alternatives = [] if -1 in node else [[literal('"')]]
            excluded = "".join(_class_char(b) for b in edges)
            alternatives.append([f"[^\\0-\\x1f\\\"\\\\\\r\\n{excluded}]", "basic_string_sub"])
            alternatives.append([literal("\\"), "basic_escape", "basic_string_sub"])
            alternatives += [[_byte_literal(b), sub] for b, sub in zip(edges, subs, strict=True)]
            return self._helper(key, _choices(alternatives))

        key.body = f"{_choices([[literal(chr(34)), helper(trie)]])} (=({WS} [,}}\\]:]))"
        return key.name


def schema_to_ebnf(schema: dict[str, Any]) -> str:
    """xgrammar's printed grammar for `schema` (raises `UnsupportedSchema` outside the subset,
    `SchemaRejected` where xgrammar fails)."""
    converter = _Converter(schema)
    converter._define("root", schema)
    return converter.text()
