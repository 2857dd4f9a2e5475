"""hunyuan_a13b one-shot reasoning: the first match of vLLM's two patterns, found in linear
time."""

from __future__ import annotations

import random

import pytest
from marker_texts import marker_text

from tokenfront.parsers.reasoning.hunyuan_a13b import _FULL, _HALF, split_reasoning

MARKERS = ["<think>\n", "\n</think>\n<answer>\n", "\n</answer>"]
# the markers' own pieces too, so they also arise split and overlapping
ALPHABET = [*MARKERS, "<think>", "</think>", "<answer>", "</answer>", "\n", " ", "x"]
CASES = 8000


def _text(rng: random.Random) -> str:
    return marker_text(rng, MARKERS, ALPHABET, 16, follow=0.4)


def _findall_split(text: str) -> tuple[str | None, str | None]:
    """The split as vLLM's `findall` calls give it."""
    found = _FULL.findall(text)
    if found:
        reasoning, content = found[0]
        return reasoning or None, content or None
    found = _HALF.findall(text)
    if found:
        reasoning, content = found[0]
        if content.endswith("\n</answer>"):
            content = content[: -len("\n</answer>")]
        return reasoning or None, content or None
    return None, text


def test_split_is_the_first_findall_match_of_vllms_patterns() -> None:
    rng = random.Random(20261203)
    shapes = {"full with reasoning": 0, "full": 0, "half": 0, "none": 0}
    for _ in range(CASES):
        text = _text(rng)
        assert split_reasoning(text) == _findall_split(text), text
        shapes[_shape(text)] += 1
    assert min(shapes.values()) > CASES // 20, shapes


def _shape(text: str) -> str:
    full = _FULL.search(text)
    if full:
        return "full" if full.group(1) is None else "full with reasoning"
    return "half" if _HALF.search(text) else "none"


@pytest.mark.parametrize(
    ("unit", "reasoning", "content_from"),
    [
        ("<think>\nI think\n</think>\n<answer>\nx", "I think", 34),
        ("<think>\nabc\n</think>\n<answer>", None, 0),
        ("<think>\n\n</think>\n<answer>\n\n</answer", None, 27),
    ],
)
def test_repeated_output_without_end_markers_splits_at_the_first_markers(
    unit: str, reasoning: str | None, content_from: int
) -> None:
    # 60k characters: vLLM's findall takes minutes here (cubic); the split is the first one
    text = unit * (60_000 // len(unit))
    assert split_reasoning(text) == (reasoning, text[content_from:])
