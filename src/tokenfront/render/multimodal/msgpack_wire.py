"""A small MessagePack writer for the subset vLLM's feature payloads use.

vLLM serializes a processed multimodal item with msgspec: maps, arrays, strings, integers,
booleans, nil and extension objects (tensor bytes). msgspec always picks the shortest encoding
of each value; so does this writer, which makes the output byte-identical.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Ext:
    """A MessagePack extension value (type code + raw payload)."""

    code: int
    data: bytes


_FIXEXT = {1: 0xD4, 2: 0xD5, 4: 0xD6, 8: 0xD7, 16: 0xD8}


def _int(value: int, out: bytearray) -> None:
    if 0 <= value <= 0x7F:
        out.append(value)
    elif -32 <= value < 0:
        out.append(value & 0xFF)
    elif value >= 0:
        if value <= 0xFF:
            out += b"\xcc" + struct.pack(">B", value)
        elif value <= 0xFFFF:
            out += b"\xcd" + struct.pack(">H", value)
        elif value <= 0xFFFFFFFF:
            out += b"\xce" + struct.pack(">I", value)
        else:
            out += b"\xcf" + struct.pack(">Q", value)
    elif value >= -0x80:
        out += b"\xd0" + struct.pack(">b", value)
    elif value >= -0x8000:
        out += b"\xd1" + struct.pack(">h", value)
    elif value >= -0x80000000:
        out += b"\xd2" + struct.pack(">i", value)
    else:
        out += b"\xd3" + struct.pack(">q", value)


def _header(size: int, fix: int, fix_max: int, codes: tuple[int, int, int], out: bytearray) -> None:
    """Length prefix of a str / array / map (`codes`: 8-bit (or 0), 16-bit, 32-bit markers)."""
    if size <= fix_max:
        out.append(fix | size)
    elif codes[0] and size <= 0xFF:
        out += bytes((codes[0], size))
    elif size <= 0xFFFF:
        out += bytes((codes[1],)) + struct.pack(">H", size)
    else:
        out += bytes((codes[2],)) + struct.pack(">I", size)


def _ext(value: Ext, out: bytearray) -> None:
    size = len(value.data)
    if size in _FIXEXT:
        out += bytes((_FIXEXT[size], value.code & 0xFF))
    elif size <= 0xFF:
        out += bytes((0xC7, size, value.code & 0xFF))
    elif size <= 0xFFFF:
        out += b"\xc8" + struct.pack(">HB", size, value.code & 0xFF)
    else:
        out += b"\xc9" + struct.pack(">IB", size, value.code & 0xFF)
    out += value.data


def _write(value: Any, out: bytearray) -> None:
    if value is None:
        out.append(0xC0)
    elif value is True:
        out.append(0xC3)
    elif value is False:
        out.append(0xC2)
    elif isinstance(value, int):
        _int(value, out)
    elif isinstance(value, float):
        out += b"\xcb" + struct.pack(">d", value)
    elif isinstance(value, str):
        data = value.encode("utf-8")
        _header(len(data), 0xA0, 31, (0xD9, 0xDA, 0xDB), out)
        out += data
    elif isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
        _header(len(data), 0, -1, (0xC4, 0xC5, 0xC6), out)
        out += data
    elif isinstance(value, Ext):
        _ext(value, out)
    elif isinstance(value, (list, tuple)):
        _header(len(value), 0x90, 15, (0, 0xDC, 0xDD), out)
        for item in value:
            _write(item, out)
    elif isinstance(value, dict):
        _header(len(value), 0x80, 15, (0, 0xDE, 0xDF), out)
        for key, item in value.items():
            _write(key, out)
            _write(item, out)
    else:
        raise TypeError(f"cannot encode {type(value).__name__} as MessagePack")


def packb(value: Any) -> bytes:
    out = bytearray()
    _write(value, out)
    return bytes(out)
