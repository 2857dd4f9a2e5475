"""muse_glimmer's reasoning messages, read as vLLM's lazy patterns read them.

The patterns read on to the end of the output from every reasoning header that no
`<|eom|>` follows (quadratic in an output of many open messages); `_closed_reasoning` /
`_closed_reasoning_bodies` find the same blocks with `find`."""

from __future__ import annotations

import random
import re

import pytest

from tokenfront.parsers.reasoning import muse

COLLAPSE = re.compile(r"<\|eom\|>(?:(?!to=self<\|message\|>).)*?to=self<\|message\|>", re.DOTALL)
REASONING = re.compile(r"to=self<\|message\|>(.*?)<\|eom\|>", re.DOTALL)
STRIP = re.compile(r"(?:<\|start\|>assistant\s*)?to=self<\|message\|>.*?<\|eom\|>", re.DOTALL)
BITS = [
    "to=self<|message|>", "to=user<|message|>", "to=functions.f<|message|>", "<|eom|>", "<|eot|>",
    "<|start|>assistant", " ", "\n", "x", "<|message|>", "to=self", "<|start|>", "assistant",
]  # fmt: skip


@pytest.mark.parametrize("seed", range(3))
def test_reasoning_blocks_are_the_patterns_matches(seed: int) -> None:
    rnd = random.Random(seed)
    for _ in range(4000):
        text = "".join(rnd.choice(BITS) for _ in range(rnd.randint(0, 12)))
        assert muse._closed_reasoning_bodies(text) == REASONING.findall(COLLAPSE.sub("", text))
        assert muse._strip_reasoning(text) == muse._STRIP_OPEN_REASONING.sub("", STRIP.sub("", text))
