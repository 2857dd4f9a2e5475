"""Look for chunk-boundary bugs: stream every vector that passes with one token per chunk in
other chunkings and print the ones that fail there.

    chunk_sweep.py [--seeds 1,2,3] [--chunkings mix14,mix15] [--parser NAME ...]

Streamed are the streaming vectors and, as the hidden corpus does, the one-shot vectors that
pass one-shot (scored against their one-shot assertion). Random chunkings (`mix14`, `mix15`)
are drawn once per seed (`vllm_vectors_run.chunk_ends` seeded with `<seed>|<source>`); fixed
ones (`2`, `3`, `5`, `7`, `all`) ignore the seed. Vectors that need their test's own deltas
are left out. Session 12: seeds 1-9 x mix14/mix15 and 2/3/5/7 found one bug (hunyuan_a13b).
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "parsers"))
import vllm_vectors_run as run  # noqa: E402
from vllm_vectors_loader import load_vectors  # noqa: E402

NOT_STREAMABLE = {"raises", "is_reasoning_end", "is_reasoning_end_only"}


def streamable(vec: dict[str, Any]) -> dict[str, Any] | None:
    """`vec` as a streaming vector, or None when a stream cannot be scored on it."""
    if vec.get("test_deltas_only") or "single_call" in vec:
        return None
    if vec["mode"] == "non_streaming":
        if NOT_STREAMABLE & set(vec["asserted"]) or run.problems(vec, "non_streaming"):
            return None
        vec = dict(vec, mode="streaming")
    if run.problems(vec, "streaming", "1"):
        return None  # already failing one token per chunk: not a chunking question
    return vec


def _seeded(chunk_ends: Any, salt: str) -> Any:
    def ends(n: int, chunking: str, *, seed: str = "") -> list[int]:
        return chunk_ends(n, chunking, seed=f"{salt}|{seed}")

    return ends


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--chunkings", default="mix14,mix15")
    ap.add_argument("--parser", nargs="*", default=None)
    a = ap.parse_args()
    seeds = a.seeds.split(",")
    chunkings = a.chunkings.split(",")
    plain_ends = run.chunk_ends
    failures: dict[tuple[str, str], list[str]] = collections.defaultdict(list)
    runs = 0
    for vec in load_vectors(group=None):
        if a.parser and vec["parser"] not in a.parser:
            continue
        svec = streamable(vec)
        if svec is None:
            continue
        for seed in seeds:
            run.chunk_ends = _seeded(plain_ends, seed)
            for chunking in chunkings:
                runs += 1
                try:
                    problems = run.problems(svec, "streaming", chunking)
                except Exception as e:  # a crash is a finding too
                    problems = [f"EXC {e!r}"[:300]]
                if problems:
                    failures[(vec["parser"], vec["source"])].append(
                        f"seed {seed} {chunking}: {problems[:2]}"
                    )
        run.chunk_ends = plain_ends
    print(f"runs {runs}, failing vectors {len(failures)}")
    for (parser, source), found in sorted(failures.items()):
        print(parser, source, len(found))
        for line in found[:2]:
            print("   ", line)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
