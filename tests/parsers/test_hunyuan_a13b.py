"""hunyuan_a13b's one-shot reading of the output."""

from __future__ import annotations

import json
import random
import re

from tokenfront.parsers.tools.hunyuan_a13b import split_output


def test_split_output_reads_blocks_as_vllms_patterns_do() -> None:
    # the blocks and think spans are found with `find`: the lazy patterns scanned to the end
    # from every opener that no closer follows (quadratic in an output of many cut blocks)
    block_re = re.compile(r"<tool_calls>([\s\S]*?)</tool_calls>", re.DOTALL)
    think_re = re.compile(r"<think>(.*?)</think>", re.DOTALL)

    def reference(text: str) -> tuple[str | None, str | None]:
        for match in block_re.finditer(text):
            start, end = match.span()
            thinks = [(m.start(), m.end()) for m in think_re.finditer(text)]
            if any(start > t0 and end < t1 for t0, t1 in thinks):
                continue
            body = match.group(1).strip()
            try:
                json.loads(body)
            except Exception:
                continue
            return text[:start], body
        return text, None

    rnd = random.Random(13)
    bits = ["<tool_calls>", "</tool_calls>", "<think>", "</think>", "[]", ' [{"name": "f"}] ', "x"]
    for _ in range(4000):
        text = "".join(rnd.choice(bits) for _ in range(rnd.randint(0, 10)))
        assert split_output(text) == reference(text), text
