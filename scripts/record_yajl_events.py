#!/usr/bin/env python3
"""Record what ijson's yajl backend (vLLM's mistral pre-v11 stream reader) answers for JSON-ish
text fed in pieces (random lexeme soup, and call lists with one character damaged): the events
after each piece, or the piece that fails.

Run with a Python that has ijson's yajl2_c backend (vLLM's venv), not the project's:

    /work/vllm-venv/bin/python scripts/record_yajl_events.py -n 600 --seed 1 \\
        --out tests/parsers/data/yajl_events.json
"""

from __future__ import annotations

import argparse
import json
import random
from decimal import Decimal
from typing import Any

import ijson

# lexeme pieces: literal letters, number characters, strings, structure, whitespace
ALPHABET = ['{', '}', '[', ']', ':', ',', '"a"', '"b"', '"', ' ', 't', 'r', 'u', 'e', 'f', 'a',
            'l', 's', 'n', '1', '0', '-', '.', 'E', '+', '2', 'x', 'true', 'null', '\\']


def _plain(value: Any) -> Any:
    return float(value) if isinstance(value, Decimal) else value


def replay(pieces: list[str]) -> list[Any]:
    """Per piece: the list of (prefix, event, value) it completed, or "error" (and stop)."""
    events: list[Any] = []

    @ijson.coroutine
    def sink() -> Any:
        while True:
            prefix, event, value = yield
            events.append([prefix, event, _plain(value)])

    coro = ijson.parse_coro(sink())
    answers: list[Any] = []
    for piece in pieces:
        try:
            coro.send(piece.encode())
        except ijson.common.IncompleteJSONError:
            answers.append("error")
            break
        answers.append(list(events))
        events.clear()
    return answers


VALID = [
    '[{"name": "get_weather", "arguments": {"city": "Paris", "days": 3, "exact": true}}]',
    '{"name": "search", "arguments": {"query": "a \\"b\\"", "score": -0.75e+2, "tags": null}}',
    '[{"name": "f", "arguments": {"x": [1, 2.5, false], "y": {}}}, {"name": "g", "arguments": {}}]',
]


def damaged(rng: random.Random) -> list[str]:
    """A valid call list with one character inserted, dropped or replaced, cut at random."""
    text = rng.choice(VALID)
    at = rng.randrange(len(text))
    junk = rng.choice(ALPHABET)[0]
    text = rng.choice([text[:at] + junk + text[at:], text[:at] + text[at + 1 :],
                       text[:at] + junk + text[at + 1 :]])
    cuts = sorted(rng.sample(range(1, len(text)), rng.randint(1, 8)))
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=600)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    assert ijson.backend == "yajl2_c", ijson.backend
    rng = random.Random(args.seed)
    cases = []
    for _ in range(args.n):
        if rng.random() < 0.5:
            pieces = damaged(rng)
        else:
            pieces = ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 3)))
                      for _ in range(rng.randint(1, 8))]
            pieces[0] = rng.choice("{[") + pieces[0]
        cases.append({"pieces": pieces, "answers": replay(pieces)})
    with open(args.out, "w") as f:  # one case per line
        f.write(f'{{"backend": "{ijson.backend}", "ijson": "{ijson.__version__}", "cases": [\n')
        f.write(",\n".join(json.dumps(case, ensure_ascii=False) for case in cases))
        f.write("\n]}\n")


if __name__ == "__main__":
    main()
