"""Body JSON: the depth limit counts real nesting only; NaN / Infinity read as Python's json reads them."""

from __future__ import annotations

import json
import math
import random

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


def _plain_nested(depth: int, leaf: object) -> object:
    value = leaf
    for i in range(depth):
        value = [value, "s", ""] if i % 2 else {"k": value, "": "", "t": 1}
    return value


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH - 1, MAX_JSON_DEPTH, MAX_JSON_DEPTH + 1])
@pytest.mark.parametrize("leaf", [1, "", "plain", "[[[{{{", '\\"]]]}}}\\\\'])
def test_depth_with_bracket_free_strings(depth: int, leaf: object) -> None:
    """Strings without brackets (the fast path) and one string that holds some (the slow one)."""
    value = {"pad": [{"a": "b"}] * 40, "body": _plain_nested(depth, leaf)}
    raw = json.dumps(value).encode()
    assert _too_deep(value, raw) == _walk_too_deep(value) == (depth + 1 > MAX_JSON_DEPTH)


def test_depth_fuzz_agrees_with_the_walk() -> None:
    rng = random.Random(11)
    full = ['"', "\\", "[", "]", "{", "}", "a", " ", ":", ","]
    bracket_free = ['"', "\\", "a", " ", ":", ","]
    alphabet = full

    def text() -> str:
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 4)))

    def tree(depth: int) -> object:
        """One spine `depth` containers deep; the siblings along it are leaves."""
        if depth == 0 or rng.random() < 0.05:
            return rng.choice([1, None, text()])
        if rng.random() < 0.5:
            return [tree(depth - 1), *(text() for _ in range(rng.randint(0, 1)))]
        return {text(): tree(depth - 1), **{text() + "_": 1 for _ in range(rng.randint(0, 1))}}

    for trial in range(400):
        alphabet = full if trial % 2 else bracket_free
        value = {"pad": [[]] * 70, "v": tree(rng.randint(MAX_JSON_DEPTH - 4, MAX_JSON_DEPTH + 2))}
        raw = json.dumps(value).encode()
        assert _too_deep(value, raw) == _walk_too_deep(value)


def test_nan_and_infinity_are_read_as_python_json_reads_them() -> None:
    from tokenfront.api.body import parse_json_body

    data = parse_json_body(b'{"temperature": NaN, "top_p": Infinity, "x": -Infinity}')
    assert math.isnan(data["temperature"]) and data["top_p"] == math.inf and data["x"] == -math.inf


@pytest.mark.parametrize("raw", [b'{"prompt": "\\ud800"}', b'{"a": NaN', b"[" * 5000])
def test_bodies_no_json_reader_takes_are_json_errors(raw: bytes) -> None:
    from tokenfront.api.body import parse_json_body
    from tokenfront.api.errors import APIError

    with pytest.raises(APIError) as err:
        parse_json_body(raw)
    assert err.value.status == 400 and "json_invalid" in err.value.message


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        # FastAPI (vLLM) reads the body with Python's json: its error position and message,
        # and an input its formatter prints as '<dict of 0 items>'
        (
            b'{"a": }',
            "{'type': 'json_invalid', 'loc': 'body.6', 'msg': 'JSON decode error', "
            "'input': '<dict of 0 items>', 'ctx': {'error': 'Expecting value'}}",
        ),
        # a `null` body is FastAPI's missing body
        (b" null ", "{'type': 'missing', 'loc': 'body', 'msg': 'Field required', 'input': 'None'}"),
    ],
)
def test_unreadable_bodies_answer_vllms_messages(raw: bytes, message: str) -> None:
    from tokenfront.api.body import parse_json_body
    from tokenfront.api.errors import APIError

    with pytest.raises(APIError) as err:
        parse_json_body(raw)
    assert err.value.message == "1 validation error:\n  " + message
