#!/usr/bin/env python3
"""Damaged tool calls on every config, vLLM 0.33.0 and tokenfront side by side.

The shared corpus's `malformed_tool` / `truncated_tool` cases are one call in the config's own
format with one flaw (a missing brace, a value cut short, a closer dropped). This sweep makes
such outputs at random: a whole call (one, parallel or nested arguments; sometimes after a line
of prose) with one damage: cut at a random point, a short span deleted, or a stray character
(`}`, `]`, `"`, `,`, `:`, a newline, `<`) inserted. Each goes through fuzz_outputs' one-shot or
streamed chat derender under random request options (tools declared 70% of the time).

    python scripts/derender_diff/fuzz_damaged.py --only syn-jamba -n 200 --seed 1 \\
        --vllm-cmd '...' --tf-cmd '...' [--record FILE]
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fuzz_mechanics import ROOT, _flag, compare_made, gc  # noqa: E402
from fuzz_outputs import output_case  # noqa: E402

sys.path.insert(0, str(ROOT / "scripts"))
from render_diff import sweep_main  # noqa: E402

STRAY = ["}", "]", '"', ",", ":", "\n", "<", "{", "["]


def damage(rng: random.Random, text: str) -> str:
    """`text` with one flaw at a random point."""
    at = rng.randrange(1, len(text))
    kind = rng.choice(["cut", "delete", "delete", "insert"])
    if kind == "cut":
        return text[:at]
    if kind == "delete":
        return text[:at] + text[at + rng.randint(1, 4) :]
    return text[:at] + rng.choice(STRAY) + text[at:]


def damaged_call(cfg: dict[str, Any]) -> Callable[[random.Random], str] | None:
    """A maker of damaged calls in the config's tool format (None: the config has none)."""
    fmt = gc.FORMATS.get(_flag(list(cfg.get("args", [])), "--tool-call-parser") or "")
    if not fmt or not fmt.calls:
        return None
    whole = [fmt.calls(gc.ONE), fmt.calls(gc.PARALLEL), fmt.calls(gc.NESTED)]

    def make(rng: random.Random) -> str:
        prose = rng.choice(["", "", "Let me check.\n", "Sure "])
        return prose + damage(rng, rng.choice(whole))

    return make


def run(name: str, cfg: dict[str, Any], vllm: str, tf: str, n: int, seed: int,
        record: Path | None, record_all: bool = False) -> int:
    make = damaged_call(cfg)
    if make is None:
        print(f"[{name}] no tool format: skipped")
        return 0
    rng = random.Random(f"{seed}-{name}-damaged")
    return compare_made(
        name, cfg, vllm, tf, n,
        lambda i, tokenize, eos: output_case(rng, name, cfg, tokenize, eos, tokenize(make(rng)), i,
                                             scenario="damaged"),
        record, record_all,
    )


def main() -> int:
    return sweep_main(__doc__, run, n=100, port=8623, logs="/tmp/damaged-logs")


if __name__ == "__main__":
    raise SystemExit(main())
