"""Random marker text for the differential tests of the linear scanners (session 22)."""

from __future__ import annotations

import random
from collections.abc import Sequence


def marker_text(
    rng: random.Random,
    spine: Sequence[str],
    alphabet: Sequence[str],
    max_pieces: int,
    follow: float = 0.5,
    start: int = 0,
) -> str:
    """Up to `max_pieces` pieces: with probability `follow` the next literal of `spine` (in
    order, cycling from `start`), else any piece of `alphabet`; so most texts hold whole
    matches, and their pieces also arise split and overlapping."""
    pieces: list[str] = []
    step = start
    for _ in range(rng.randint(0, max_pieces)):
        if rng.random() < follow:
            pieces.append(spine[step % len(spine)])
            step += 1
        else:
            pieces.append(rng.choice(alphabet))
    return "".join(pieces)
