"""granite reasoning's one-shot split (the markers are ordinary text)."""

from __future__ import annotations

import random
import re

from tokenfront.parsers.base import ParseContext
from tokenfront.parsers.reasoning.granite import GraniteReasoningParser


def test_one_shot_split_is_vllms_pattern_match() -> None:
    # read with `find`: the pattern read on to the end from every thought marker that no
    # response marker follows (quadratic in an output of many)
    pattern = re.compile(
        r"(?:Here's|Here is) my thought process:(.*?)(?:Here's|Here is) my response:(.*)",
        re.DOTALL,
    )
    parser = GraniteReasoningParser(None, ParseContext())
    bits = [
        "Here's my thought process:", "Here is my thought process:", "Here's my response:",
        "Here is my response:", "Here is my", " thought process:", "x", " ", "\n",
    ]  # fmt: skip
    rnd = random.Random(3)
    for _ in range(4000):
        text = "".join(rnd.choice(bits) for _ in range(rnd.randint(0, 8)))
        found = pattern.findall(text)
        want = (found[0][0], found[0][1] or None) if found else (None, text)
        assert parser.extract_reasoning(text) == want, text
