"""`ObjectText` writes exactly what `json.dumps(values, ensure_ascii=False)` writes, for any
order of assignments (a key set again keeps its place), with or without a last member."""

from __future__ import annotations

import json
import random
from typing import Any

from tokenfront.parsers.engines.object_text import ObjectText, member_text, object_text

KEYS = ("a", "b", "é", 'q"uote', "back\\slash", "tab\t", "\x00nul", "\u2028", "😀", "")
VALUES: tuple[Any, ...] = (
    "v", "", "line\nbreak", 'say "hi"', "\x1f", "ünï", "😀", "\ud800", 1, -2.5, 1e300, True,
    None, [1, "two", {"x": None}], {"nested": {"k": ["é"]}}, float("nan"),
)  # fmt: skip


def _dumps(values: dict[str, Any]) -> str:
    return json.dumps(values, ensure_ascii=False)


def test_text_equals_json_dumps_after_any_assignments() -> None:
    rng = random.Random(2412)
    for _ in range(2000):
        obj, expected = ObjectText(), {}
        for _ in range(rng.randrange(0, 8)):
            key, value = rng.choice(KEYS), rng.choice(VALUES)
            obj[key] = value
            expected[key] = value
        assert obj.text() == _dumps(expected)
        key, value = rng.choice(KEYS), rng.choice(VALUES)
        assert obj.text((key, value)) == _dumps({**expected, key: value})
        assert obj.text() == _dumps(expected)  # the last member is not kept


def test_a_copy_grows_apart_from_its_original() -> None:
    obj = ObjectText()
    obj["a"] = "1"
    copy = obj.copy()
    copy["b"] = "2"
    copy["a"] = "changed"
    assert obj.text() == '{"a": "1"}'
    assert copy.text() == '{"a": "changed", "b": "2"}'
    assert obj != copy


def test_pop_last_drops_the_newest_key_not_the_last_assigned() -> None:
    obj = ObjectText()
    obj["a"], obj["b"], obj["a"] = "1", "2", "3"
    obj.pop_last()
    assert obj.text() == '{"a": "3"}' and "b" not in obj and obj.values == {"a": "3"}


def test_equal_values_make_equal_objects() -> None:
    one, two = ObjectText(), ObjectText()
    one["k"] = two["k"] = "v"
    assert one == two
    two["k"] = "w"
    assert one != two


def test_member_and_object_text_compose_like_dumps() -> None:
    members = [member_text("k", "v"), member_text("n", [1, {"é": None}])]
    assert object_text(members) == _dumps({"k": "v", "n": [1, {"é": None}]})
    assert object_text([]) == "{}"
