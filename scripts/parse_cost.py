"""Parse time of long, repetitive outputs per parser: flags super-linear growth.

    parse_cost.py [--sizes SMALL LARGE] [--markers] [PARSER ...]

For each parser with vLLM test vectors (tests/parsers/vllm_vectors), the six longest distinct
model outputs, their first half and their first third are each repeated to SMALL and LARGE
characters (default 3,000 and 12,000) and parsed one-shot and as a single stream chunk, in
process. `--markers`: instead, each tool output's own markers (tags, `[MARKERS]`, fences)
are written over and over into its first string value up to SMALL and LARGE characters
(markup inside one call's value cuts a stream chunk into many pieces). A line starting with
`!!` names an output whose time grew more than 8x while the text grew 4x (and took over
0.2 s), took over 1 s, or raised; each parser ends with its worst time. Timings are
wall-clock: run it on a quiet machine (docs/performance.md).
"""

from __future__ import annotations

import argparse
import collections
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "parsers"))
import vllm_vectors_run as runner  # noqa: E402
from vllm_vectors_loader import load_vectors  # noqa: E402

SHAPES = {"whole": 1, "half": 2, "third": 3}


def timed(work: Callable[[], Any]) -> tuple[float, str | None]:
    start = time.perf_counter()
    try:
        work()
    except Exception as exc:  # a parser error is reported, not fatal
        return time.perf_counter() - start, repr(exc)[:120]
    return time.perf_counter() - start, None


def outputs_by_parser(only: set[str]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    found: dict[tuple[str, str], list[dict[str, Any]]] = collections.defaultdict(list)
    for vec in load_vectors(group=None):
        if vec.get("single_call") or not vec["model_output"]:
            continue
        if only and vec["parser"] not in only:
            continue
        key = (vec["parser"], vec["kind"])
        if all(v["model_output"] != vec["model_output"] for v in found[key]):
            found[key].append(vec)
    return found


# Markup a model output may hold: tags, `[MARKERS]`, DeepSeek's full-width markers, fences.
MARKER = re.compile(r"<\|?/?[A-Za-z_:.▁｜|]{2,40}\|?>|\[[A-Z_]{3,}\]|<｜[^｜]{1,30}｜>|```json")
# The first string value of a call (JSON or markup) in an output.
STRING_VALUE = re.compile(r'": "([^"\\<]{2,})"|>([A-Za-z][^<>]{2,})</')


def marker_filled(out: str) -> tuple[str, str, str] | None:
    """(before, unit, after): the output with its own markers, repeated as `unit`, written
    into its first string value, so that a parser meets markup inside one call's value."""
    value = STRING_VALUE.search(out)
    markers = sorted(set(MARKER.findall(out)))
    if value is None or not markers:
        return None
    at = value.start(1) if value.group(1) is not None else value.start(2)
    return out[:at], "".join(f"{m}x " for m in markers), out[at:]


def cost(
    vec: dict[str, Any], unit: str, size: int, around: tuple[str, str] = ("", "")
) -> tuple[float, float, str | None]:
    """(one-shot seconds, one-chunk stream seconds, error) for `unit` repeated to `size`
    (between the `around` texts)."""
    pipeline, tok = runner.vector_parser(vec)
    ctx = runner.request_context(vec)
    text = around[0] + unit * max(1, size // len(unit)) + around[1]
    ids = tok.encode(text, add_special_tokens=False)
    one_shot, err1 = timed(lambda: pipeline.parse(text, ids, ctx))
    streamed, err2 = timed(lambda: pipeline.stream(None, text, ids, ctx, finished=True))
    return one_shot, streamed, err1 or err2


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", nargs=2, type=int, default=[3000, 12000])
    ap.add_argument(
        "--markers", action="store_true",
        help="instead: each output's own markers written many times into its first call's "
        "string value",
    )  # fmt: skip
    ap.add_argument("parsers", nargs="*")
    args = ap.parse_args()
    small, large = args.sizes
    for (parser, kind), vecs in sorted(outputs_by_parser(set(args.parsers)).items()):
        worst = (0.0, "")
        for vec in sorted(vecs, key=lambda v: -len(v["model_output"]))[:6]:
            out = vec["model_output"]
            cases: list[tuple[str, str, tuple[str, str]]] = []
            if args.markers:
                filled = marker_filled(out) if kind == "tool" else None
                if filled is not None:
                    cases.append(("markers", filled[1], (filled[0], filled[2])))
            else:
                for shape, part in SHAPES.items():
                    cases.append((shape, out[: max(1, len(out) // part)], ("", "")))
            for shape, unit, around in cases:
                a1, b1, _ = cost(vec, unit, small, around)
                a2, b2, err = cost(vec, unit, large, around)
                growth = max(a2 / max(a1, 1e-4), b2 / max(b1, 1e-4))
                slowest = max(a2, b2)
                if (slowest > 0.2 and growth > 8) or slowest > 1 or err:
                    print(
                        f"!! {parser}/{kind} {shape} {vec['source'][-70:]} "
                        f"parse {a1:.3f}->{a2:.3f} stream {b1:.3f}->{b2:.3f} {err or ''}",
                        flush=True,
                    )
                worst = max(worst, (slowest, shape))
        print(f"{parser}/{kind}: worst {worst[0]:.3f}s ({worst[1]})", flush=True)


if __name__ == "__main__":
    main()
