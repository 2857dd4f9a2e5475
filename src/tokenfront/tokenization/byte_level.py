"""GPT-2's byte-level alphabet: the printable character byte-level BPE writes for each byte."""

from __future__ import annotations

from functools import cache


@cache
def byte_alphabet() -> tuple[str, ...]:
    """The stand-in character of each byte value 0-255 (printable Latin-1 bytes stand for
    themselves, the others for the characters from U+0100 on, in byte order)."""
    kept = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    table = {b: chr(b) for b in kept}
    extra = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + extra)
            extra += 1
    return tuple(table[b] for b in range(256))


def byte_of_char() -> dict[str, int]:
    """The inverse of `byte_alphabet`."""
    return {char: b for b, char in enumerate(byte_alphabet())}
