"""A JSON object's text kept per member, for objects that grow a member at a time.

A stream chunk converts its open call's arguments once per lexer piece, each time with a
few more members than the last; encoding the whole object every time made one big chunk
quadratic. `ObjectText` encodes each member once, when it is set, and joins the members'
texts on demand: `text()` equals `json.dumps(values, ensure_ascii=False)`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from json.encoder import encode_basestring  # type: ignore[attr-defined]
from typing import Any


def member_text(key: str, value: Any) -> str:
    """`"key": value` as `json.dumps(..., ensure_ascii=False)` writes it inside an object."""
    if type(value) is str:
        return f"{encode_basestring(key)}: {encode_basestring(value)}"
    return f"{encode_basestring(key)}: {json.dumps(value, ensure_ascii=False)}"


def object_text(members: Iterable[str]) -> str:
    """The object text of `member_text` results."""
    return "{" + ", ".join(members) + "}"


class ObjectText:
    """String-keyed values in first-set order (a key set again keeps its place, as in a
    dict) with each member's JSON text."""

    __slots__ = ("values", "members")

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        self.members: dict[str, str] = {}

    def __setitem__(self, key: str, value: Any) -> None:
        self.values[key] = value
        self.members[key] = member_text(key, value)

    def __contains__(self, key: object) -> bool:
        return key in self.values

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ObjectText) and other.values == self.values

    __hash__ = None  # type: ignore[assignment]

    def copy(self) -> ObjectText:
        other = ObjectText()
        other.values = dict(self.values)
        other.members = dict(self.members)
        return other

    def pop_last(self) -> None:
        """Drop the last member in order (the key first set most recently)."""
        self.values.popitem()
        self.members.popitem()

    def text(self, last: tuple[str, Any] | None = None) -> str:
        """The JSON text, with `last` = (key, value) set on top when given (self unchanged)."""
        if last is None:
            return object_text(self.members.values())
        key, value = last
        if key in self.members:
            members = dict(self.members)
            members[key] = member_text(key, value)
            return object_text(members.values())
        return object_text([*self.members.values(), member_text(key, value)])
