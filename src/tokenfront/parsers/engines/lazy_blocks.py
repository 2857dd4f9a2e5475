"""Blocks between an opener and a closer, as a lazy `OPENER(.*?)CLOSER` (DOTALL) finds them.

The pattern itself reads on to the end of the text from every opener that no closer
follows, so an output of many cut blocks costs it quadratic time; two `find`s per block
give the same matches (when no closer follows one opener, none follows a later one).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator


def lazy_blocks(text: str, opener: str, closer: str) -> Iterator[tuple[int, int]]:
    """`finditer`'s match spans (opener start, closer end), left to right."""
    pos = 0
    while (start := text.find(opener, pos)) != -1:
        close = text.find(closer, start + len(opener))
        if close == -1:
            return
        pos = close + len(closer)
        yield start, pos


def lazy_bodies(text: str, opener: str, closer: str) -> list[str]:
    """`findall`'s groups: each block's text between its opener and closer."""
    blocks = lazy_blocks(text, opener, closer)
    return [text[start + len(opener) : end - len(closer)] for start, end in blocks]


def without(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """`text` without the (ordered, disjoint) spans: `sub("", text)` for their pattern."""
    kept: list[str] = []
    pos = 0
    for start, end in spans:
        kept.append(text[pos:start])
        pos = end
    kept.append(text[pos:])
    return "".join(kept)
