"""`lazy_blocks` finds what a lazy `OPENER(.*?)CLOSER` pattern finds, without its quadratic
reading of cut blocks (dots, hunyuan_a13b)."""

from __future__ import annotations

import random
import re

import pytest

from tokenfront.parsers.engines.lazy_blocks import lazy_blocks, lazy_bodies, without

BITS = ["<a>", "</a>", "<a", "a>", "x", " ", "\n", "<", ">", "</"]


@pytest.mark.parametrize("seed", range(3))
def test_lazy_blocks_are_the_patterns_matches(seed: int) -> None:
    pattern = re.compile(r"<a>(.*?)</a>", re.DOTALL)
    rnd = random.Random(seed)
    for _ in range(3000):
        text = "".join(rnd.choice(BITS) for _ in range(rnd.randint(0, 14)))
        assert list(lazy_blocks(text, "<a>", "</a>")) == [m.span() for m in pattern.finditer(text)]
        assert lazy_bodies(text, "<a>", "</a>") == pattern.findall(text)
        assert without(text, lazy_blocks(text, "<a>", "</a>")) == pattern.sub("", text)


def test_a_stripped_block_is_the_group_of_the_whitespace_trimming_pattern() -> None:
    # dots' `START\s*(.*?)\s*END`: the block's inner text stripped
    pattern = re.compile(r"<a>\s*(.*?)\s*</a>", re.DOTALL)
    rnd = random.Random(5)
    for _ in range(3000):
        text = "".join(rnd.choice([*BITS, "\u3000", "\t"]) for _ in range(rnd.randint(0, 14)))
        blocks = [text[s + 3 : e - 4].strip() for s, e in lazy_blocks(text, "<a>", "</a>")]
        assert blocks == pattern.findall(text), text


def test_an_output_of_cut_blocks_has_none() -> None:
    text = "<a>x " * 20_000
    assert list(lazy_blocks(text, "<a>", "</a>")) == []
