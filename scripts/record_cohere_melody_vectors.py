#!/usr/bin/env python3
"""Record filter vectors for the Cohere Command parsers from the `cohere-melody` package.

vLLM 0.33.0's `cohere_command3/4` parsers delegate to `cohere_melody.PyFilter` (presets cmd3 /
cmd4). Run this with the Python that has cohere-melody installed (e.g. /work/vllm-venv, never a
tokenfront dependency):

    /work/vllm-venv/bin/python scripts/record_cohere_melody_vectors.py

It writes tests/parsers/data/cohere_melody_vectors.json: for each output text and chunking, the
filter's result per chunk and for the final flush ([content, reasoning, tool calls, citations],
null when empty) and the one-shot result.
`tests/parsers/test_cohere_command.py` replays them against the mode filter engine.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from cohere_melody import PyFilter, PyFilterOptions  # type: ignore[import-not-found]

OUT = Path(__file__).resolve().parent.parent / "tests/parsers/data/cohere_melody_vectors.json"

T, ET = "<|START_THINKING|>", "<|END_THINKING|>"
R, ER = "<|START_RESPONSE|>", "<|END_RESPONSE|>"
A, EA = "<|START_ACTION|>", "<|END_ACTION|>"
CALL = '[{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris"}}]'
PRETTY = (
    '[\n    {\n        "tool_call_id": "1",\n        "tool_name": "search",\n        "parameters": {\n'
    '            "query": "x \\" y",\n            "n": [1, 2]\n        }\n    }\n]'
)

TEXTS = [
    "Plain answer text.",
    "  leading and trailing  \n",
    f"{R}The answer is 42.{ER}",
    f"{T}  Plan it.  {ET}{R}Here it is.{ER}",
    f"{T}Plan.{ET}{A}{CALL}{EA}",
    f"Sure.\n{A}{CALL}{EA}\nDone.",
    f"{A}{PRETTY}{EA}",
    f'{A}[{{"tool_call_id": "0", "tool_name": "a", "parameters": {{}}}}, '
    f'{{"tool_call_id": "1", "tool_name": "b", "parameters": {{"k": "v\\\\"}}}}]{EA}',
    f'{A}[{{"tool_name": "no_id", "parameters": {{"x": 1}}}}]{EA}',
    f'{A}[{{"tool_call_id": "0", "tool_name": "cut", "parameters": {{"city": "Par',
    f"{R}It is <co>sunny</co: 0:[0]> and <co>warm</co: 0:[0,1],1:[2]>.{ER}",
    f"{T}Doc says <co>rain</co: 1:[2]>{ET}{R}Rain <co>now",
    f"{R}a < b and <c> <|x|> done{ER} ignored",
    f"{T}{ET}   answer after empty thinking",
    f"{A}{CALL}{EA}{A}{CALL}{EA}{R}Both.{ER}",
    "<|START_TEXT|>text tag<|END_TEXT|>",
    f"ab{T}x <co>y</co: 0:[1]>{ET}cd <co>z</co: 2:[0]>",
    f"{R}a{ER} ignored <|START_RESP and more {R}b",
]


def _result(r: Any) -> list[Any] | None:
    """[content, reasoning, calls, citations], or None when the result is empty."""
    calls = [[t.index, t.id, t.name, t.arguments] for t in r.tool_calls]
    citations = [
        [c.start_index, c.end_index, c.text, c.is_thinking,
         [[s.tool_call_index, list(s.tool_result_indices)] for s in c.sources]]
        for c in r.citations
    ]
    if r.content is None and r.reasoning is None and not calls and not citations:
        return None
    return [r.content, r.reasoning, calls, citations]


def _chunkings(text: str, rng: random.Random) -> list[list[str]]:
    out = [[text], list(text)]
    if len(text) > 2:
        cuts = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, 6)))
        out.append([text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)])
    return out


def main() -> int:
    rng = random.Random(7)
    vectors = []
    for preset in ("cmd3", "cmd4"):
        for text in TEXTS:
            for chunks in _chunkings(text, rng):
                f = PyFilter(getattr(PyFilterOptions(), preset)())
                steps = [_result(f.write_decoded(c)) for c in chunks]
                steps.append(_result(f.flush_partials()))
                whole = _result(PyFilter(getattr(PyFilterOptions(), preset)()).process_full_text(text))
                vectors.append({"preset": preset, "chunks": chunks, "steps": steps, "whole": whole})
    lines = ",\n".join(json.dumps(v, ensure_ascii=False) for v in vectors)
    OUT.write_text(f'{{"source": "cohere-melody 0.15.3", "vectors": [\n{lines}\n]}}\n', encoding="utf-8")
    print(f"wrote {len(vectors)} vectors to {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
