"""xgrammar 0.2.8's printed JSON-schema grammar (expectations recorded from `Grammar.from_json_schema`)."""

from __future__ import annotations

from typing import Any

import pytest

from tokenfront.render.json_schema_ebnf import UnsupportedSchema, literal, schema_to_ebnf

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
    {"type": "number", "multipleOf": 0.5, "exclusiveMaximum": 1, "prefixItems": []},
    {"allOf": [{"type": "string"}, {"minLength": 1}]},
    {"type": "object", "properties": {"a": {}}, "additionalProperties": True},
    {"type": "string", "pattern": 'a"b'},
])
def test_outside_the_subset(schema: dict[str, Any]) -> None:
    with pytest.raises(UnsupportedSchema):
        schema_to_ebnf(schema)
