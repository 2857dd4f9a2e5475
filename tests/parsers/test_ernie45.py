"""ernie45's one-shot reading of the calls."""

from __future__ import annotations

import random
import re

from tokenfront.parsers.tools.ernie45 import _call_bodies


def test_call_bodies_are_vllms_pattern_matches() -> None:
    # read with `find` and a search for the end: the pattern itself read on to the end of the
    # output from every `<tool_call>{` that no `}</tool_call>` follows (quadratic)
    pattern = re.compile(r"<tool_call>\s*(?P<json>\{.*?\})\s*</tool_call>", re.DOTALL)
    rnd = random.Random(11)
    bits = ["<tool_call>", "</tool_call>", "{", "}", " ", "\n", '"a": 1', "x", "\u3000"]
    for _ in range(5000):
        text = "".join(rnd.choice(bits) for _ in range(rnd.randint(0, 12)))
        assert _call_bodies(text) == pattern.findall(text), text
