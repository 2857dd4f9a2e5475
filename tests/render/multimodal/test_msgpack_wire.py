"""The MessagePack writer picks msgspec's (shortest) encodings."""

from __future__ import annotations

import pytest

from tokenfront.render.multimodal.msgpack_wire import Ext, packb


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, b"\xc0"),
        (True, b"\xc3"),
        (False, b"\xc2"),
        (0, b"\x00"),
        (127, b"\x7f"),
        (128, b"\xcc\x80"),
        (256, b"\xcd\x01\x00"),
        (65536, b"\xce\x00\x01\x00\x00"),
        (2**32, b"\xcf\x00\x00\x00\x01\x00\x00\x00\x00"),
        (-1, b"\xff"),
        (-32, b"\xe0"),
        (-33, b"\xd0\xdf"),
        (-129, b"\xd1\xff\x7f"),
        ("", b"\xa0"),
        ("a" * 31, b"\xbf" + b"a" * 31),
        ("a" * 32, b"\xd9\x20" + b"a" * 32),
        ("a" * 256, b"\xda\x01\x00" + b"a" * 256),
        ([], b"\x90"),
        ([1] * 16, b"\xdc\x00\x10" + b"\x01" * 16),
        ({}, b"\x80"),
        ({"k": [1, None]}, b"\x81\xa1k\x92\x01\xc0"),
        (Ext(3, b"\x01" * 16), b"\xd8\x03" + b"\x01" * 16),
        (Ext(3, b"\x01" * 8), b"\xd7\x03" + b"\x01" * 8),
        (Ext(3, b"\x01" * 3), b"\xc7\x03\x03" + b"\x01" * 3),
        (Ext(3, b"\x01" * 300), b"\xc8\x01\x2c\x03" + b"\x01" * 300),
        (Ext(3, b"\x01" * 70000), b"\xc9\x00\x01\x11\x70\x03" + b"\x01" * 70000),
    ],
)
def test_encodings(value: object, expected: bytes) -> None:
    assert packb(value) == expected


def test_unknown_type_refused() -> None:
    with pytest.raises(TypeError):
        packb(object())
