"""vLLM's multimodal item hash (`mm_hashes`).

The digest (blake3 by default) runs over a framed byte stream: every chunk carries its 8-byte
little-endian length, every container a kind tag (none / sequence / mapping / leaf) and an item
count, so different structures never share bytes. For an image item the hashed value is the
encoded media exactly as the client sent it, together with the decode settings when the decoder
changed its mode (e.g. RGBA -> RGB over a white background); keys are hashed in sorted order
(`image`, then `model_id`: the `--model` argument).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

_NONE, _SEQUENCE, _MAPPING, _LEAF = b"\x00", b"\x01", b"\x02", b"\x03"


def _length(value: int) -> bytes:
    return value.to_bytes(8, "little")


def _framed(chunk: bytes) -> Iterator[bytes]:
    yield _length(len(chunk))
    yield chunk


class HashedImage:
    """The hash input of a decoded image: its original bytes and the decode settings used."""

    def __init__(self, original: bytes, io_config: dict[str, Any] | None) -> None:
        self.original = original
        self.io_config = io_config


def _leaf(value: Any) -> Iterator[bytes]:
    if isinstance(value, HashedImage):
        yield from _framed(b"image")
        if value.io_config:
            yield from _value({"io_config": value.io_config, "data": value.original})
        else:
            yield from _value(value.original)
    elif isinstance(value, bytes):
        yield from _framed(value)
    elif isinstance(value, str):
        yield from _framed(value.encode("utf-8"))
    elif isinstance(value, bool):  # numpy's bool scalar: one byte
        yield from _framed(b"\x01" if value else b"\x00")
    elif isinstance(value, int):  # numpy's default int64
        yield from _framed(value.to_bytes(8, "little", signed=True))
    elif isinstance(value, float):
        import struct

        yield from _framed(struct.pack("<d", value))
    else:
        raise TypeError(f"no hash encoding for {type(value).__name__}")


def _value(value: Any) -> Iterator[bytes]:
    if value is None:
        yield _NONE
    elif isinstance(value, (list, tuple)):
        yield _SEQUENCE
        yield _length(len(value))
        for item in value:
            yield from _value(item)
    elif isinstance(value, dict):
        yield _MAPPING
        yield _length(len(value))
        for key, item in value.items():
            yield from _framed(str(key).encode("utf-8"))
            yield from _value(item)
    else:
        yield _LEAF
        yield from _leaf(value)


def _hasher(algorithm: str) -> Any:
    if algorithm == "blake3":
        from blake3 import blake3

        return blake3()
    import hashlib

    if algorithm in ("sha256", "sha512"):
        return hashlib.new(algorithm)
    raise ValueError(f"Unsupported hash algorithm: {algorithm}")


def hash_item(algorithm: str, **kwargs: Any) -> str:
    """The hex digest of keyword items, keys in sorted order."""
    hasher = _hasher(algorithm)
    for key in sorted(kwargs):
        for chunk in _framed(key.encode("utf-8")):
            hasher.update(chunk)
        for chunk in _value(kwargs[key]):
            hasher.update(chunk)
    return str(hasher.hexdigest())
