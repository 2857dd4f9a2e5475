"""The JSON depth limit counts real nesting only: brackets inside strings and escapes don't count."""

from __future__ import annotations

import json

import pytest

from tokenfront.api.body import MAX_JSON_DEPTH, _too_deep, _walk_too_deep


def _nested(depth: int, leaf: object) -> object:
    value = leaf
    for i in range(depth):
        value = [value] if i % 2 else {'k[{\\"': value}
    return value


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH - 1, MAX_JSON_DEPTH, MAX_JSON_DEPTH + 1])
@pytest.mark.parametrize("leaf", [1, "[[[{{{", '\\"]]]}}}\\\\', "x" * 70])
@pytest.mark.parametrize("indent", [None, 1])
def test_depth_from_bytes_agrees_with_the_walk(
    depth: int, leaf: object, indent: int | None
) -> None:
    value = {"pad": [[1]] * 40, "body": _nested(depth, leaf)}
    raw = json.dumps(value, indent=indent).encode()
    assert _too_deep(value, raw) == _walk_too_deep(value) == (depth + 1 > MAX_JSON_DEPTH)
