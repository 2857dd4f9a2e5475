"""xgrammar 0.2.8's printed JSON-schema grammar (expectations recorded from `Grammar.from_json_schema`)."""

from __future__ import annotations

from typing import Any

import pytest

from tokenfront.render.json_schema_ebnf import (
    SchemaRejected,
    UnsupportedSchema,
    literal,
    schema_to_ebnf,
)

WS = "[ \\n\\r\\t]*"


def _own_rules(schema: dict[str, Any]) -> list[str]:
    return [line for line in schema_to_ebnf(schema).splitlines() if not line.startswith("basic_")]


def test_builtin_rules_frame_the_grammar() -> None:
    lines = schema_to_ebnf({"type": "string"}).splitlines()
    assert lines[0].startswith("basic_escape ::= ")
    assert lines[13] == "root ::= ((basic_string))"
    assert lines[14] == 'basic_integer_1 ::= ("" | ("-"))'
    assert lines[-1] == 'basic_number_5 ::= ("" | ([eE] basic_number_4 basic_number_digits{1, -1}))'


def test_optional_properties_chain() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"},
                                               "c": {"type": "boolean"}}}
    pair = f'{WS} ":" {WS}'
    assert _own_rules(schema) == [
        f'root ::= (("{{" {WS} root_1 {WS} "}}") | ("{{" {WS} "}}"))',
        f'root_part_1 ::= ("" | ({WS} "," {WS} "\\"c\\"" {pair} basic_boolean))',
        f'root_part_0 ::= ((root_part_1) | ({WS} "," {WS} "\\"b\\"" {pair} basic_string root_part_1))',
        f'root_1 ::= (("\\"a\\"" {pair} basic_integer root_part_0) | ("\\"b\\"" {pair} basic_string '
        f'root_part_1) | ("\\"c\\"" {pair} basic_boolean))',
    ]


def test_pattern_enum_const_and_arrays() -> None:
    schema = {"type": "object", "properties": {
        "id": {"type": "string", "pattern": "^[0-9]+$"},
        "kind": {"enum": ["a", 1, None, True]},
        "tags": {"type": "array", "items": {"const": "東"}, "minItems": 1, "maxItems": 2},
    }, "required": ["id", "kind", "tags"]}
    rules = _own_rules(schema)
    assert 'root_prop_1 ::= (("\\"a\\"") | ("1") | ("null") | ("true"))' in rules
    assert 'root_prop_2_additional ::= (("\\"\\u6771\\""))' in rules
    assert rules[-2] == 'root_prop_0_1 ::= Regex("^[0-9]+$", json_string=true)'
    assert f'root_prop_2_1 ::= ("" | ({WS} "," {WS} root_prop_2_additional))' in rules


def test_literal_escapes() -> None:
    assert literal('a"\\é東😀') == '"a\\"\\\\\\xe9\\u6771\\U0001f600"'


@pytest.mark.parametrize("schema", [
    {"type": "object", "properties": {"a": {}}, "minProperties": 1},
    {"type": "object", "patternProperties": {"^x": {"type": "integer"}}},
    {"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}},
    {"type": "array", "unevaluatedItems": False},
    {"type": "string", "pattern": 'a"b'},
])
def test_outside_the_subset(schema: dict[str, Any]) -> None:
    with pytest.raises(UnsupportedSchema):
        schema_to_ebnf(schema)


@pytest.mark.parametrize(("schema", "message"), [
    ({"type": "integer", "minimum": 5, "maximum": 1}, "Invalid range: minimum greater than maximum"),
    ({"type": "number", "exclusiveMinimum": 1, "maximum": 1}, "Invalid range: empty range"),
    ({"enum": []}, "enum array must not be empty"),
    ({"type": "string", "minLength": 3, "maxLength": 2}, "minLength 3 is greater than maxLength 2"),
    ({"type": "array", "prefixItems": [{}], "maxItems": 0}, "maxItems is less than the number of prefixItems: 0 < 1"),
    ({"type": "foo"}, 'Unsupported type "foo"'),
])
def test_schemas_xgrammar_rejects(schema: dict[str, Any], message: str) -> None:
    with pytest.raises(SchemaRejected, match=message):
        schema_to_ebnf(schema)


def test_integer_range_is_its_own_grammar_merged_in() -> None:
    rules = _own_rules({"type": "object", "properties": {"n": {"type": "integer", "minimum": 5, "maximum": 123}},
                        "required": ["n"]})
    assert rules[1:3] == [
        "root_prop_0 ::= ((root_1))",
        'root_1 ::= (([5-9]) | ([1-9] [0-9]) | ("1" "0" [0-9]) | ("1" "1" [0-9]) | ("1" "2" [0-3]))',
    ]


def test_date_format() -> None:
    assert _own_rules({"type": "string", "format": "date"})[:5] == [
        'root ::= (("\\"" root_1 "\\""))',
        'root_1 ::= ((root_1_1{4, 4} "-" root_2 "-" root_3))',
        "root_1_1 ::= (([0-9]))",
        'root_2 ::= (("0" [1-9]) | ("1" [0-2]))',
        'root_3 ::= (("0" [1-9]) | ([1-2] [0-9]) | ("3" [01]))',
    ]
