"""tokenfront.parsers.engines.schema_types: reading request tool schemas defensively."""

from __future__ import annotations

from typing import Any

import pytest

from tokenfront.parsers.engines.schema_types import tool_properties, type_arguments


def _tools(properties: Any) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": properties}}}]


@pytest.mark.parametrize("properties", [7, "x", [1], None])
def test_properties_that_are_no_object_read_as_no_schema(properties: Any) -> None:
    assert tool_properties(_tools(properties), "f") == {}
    assert type_arguments('{"days": "3"}', _tools(properties), "f") == '{"days": "3"}'


def test_properties_retype_arguments() -> None:
    assert type_arguments('{"days": "3"}', _tools({"days": {"type": "integer"}}), "f") == '{"days": 3}'
