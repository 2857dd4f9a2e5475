"""Snapshot every parser's deltas, to show a parsing change leaves them as they were.

    delta_snapshot.py OUT.json [--parser NAME ...]     # write a snapshot
    delta_snapshot.py --compare BEFORE.json AFTER.json  # list the results that differ

Every vector of tests/parsers/vllm_vectors (all groups) is streamed through its served
pipeline (`vllm_vectors_run.vector_parser`) in chunks of 1, 2, 3, 5, 7, mix14, mix15 and all
tokens, and parsed one-shot; the snapshot keeps each chunk's delta (content, reasoning, tool
call index / name / arguments) and the one-shot message. Vectors that need their test's own
deltas are left out. Take one snapshot before a change and one after (about a minute).
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "parsers"))
import vllm_vectors_run as run  # noqa: E402
from vllm_vectors_loader import load_vectors  # noqa: E402

CHUNKINGS = ("1", "2", "3", "5", "7", "mix14", "mix15", "all")


def _stream(vec: dict[str, Any], parser: Any, tok: Any, ids: list[int], chunking: str) -> Any:
    ends = list(range(1, len(ids) + 1)) if chunking == "1" else run.chunk_ends(
        len(ids), chunking, seed=vec["source"]
    )
    ctx = run.request_context(vec)
    state, shown, start, out = None, "", 0, []
    try:
        for end in ends:
            full = tok.decode(ids[:end], skip_special_tokens=False)
            piece = "" if full.endswith("\ufffd") else full[len(shown) :]
            if piece:
                shown = full
            finished = end == len(ids)
            delta, state = parser.stream(state, piece, ids[start:end], ctx, finished=finished)
            start = end
            out.append(
                None
                if delta is None
                else [
                    delta.content,
                    delta.reasoning,
                    [[tc.index, tc.name, tc.arguments] for tc in delta.tool_calls or []],
                ]
            )
    except Exception as exc:  # recorded: a change may turn an error into an answer
        out.append(repr(exc)[:200])
    return out


def snapshot(parsers: set[str]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for n, vec in enumerate(load_vectors(group=None)):
        if parsers and vec["parser"] not in parsers:
            continue
        if vec.get("test_deltas_only") or "single_call" in vec:
            continue
        try:
            parser, tok = run.vector_parser(vec)
        except Exception:
            continue
        ids = tok.encode(vec["model_output"], add_special_tokens=False)
        key = f"{n}#{vec['parser']}#{vec['source']}"
        for chunking in CHUNKINGS:
            found[f"{key}#{chunking}"] = _stream(vec, parser, tok, ids, chunking)
        try:
            message = parser.parse(vec["model_output"], ids, run.request_context(vec))
            found[f"{key}#once"] = [
                message["content"],
                message["reasoning"],
                [[c["function"][k] for k in ("name", "arguments")] for c in message["tool_calls"]],
            ]
        except Exception as exc:
            found[f"{key}#once"] = repr(exc)[:200]
    return found


def compare(before: dict[str, Any], after: dict[str, Any]) -> int:
    differ = [k for k in before.keys() | after.keys() if before.get(k) != after.get(k)]
    print(f"{len(differ)} of {len(before)} results differ")
    for parser, count in collections.Counter(k.split("#")[1] for k in differ).most_common():
        print(f"  {parser}: {count}")
    for key in sorted(differ)[:5]:
        print(key)
        print("  before", json.dumps(before.get(key))[:400])
        print("  after ", json.dumps(after.get(key))[:400])
    return 1 if differ else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", nargs="?")
    ap.add_argument("--parser", nargs="*", default=[])
    ap.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    args = ap.parse_args()
    if args.compare:
        a, b = (json.loads(Path(p).read_text()) for p in args.compare)
        sys.exit(compare(a, b))
    if not args.out:
        ap.error("give OUT.json or --compare BEFORE AFTER")
    found = snapshot(set(args.parser))
    Path(args.out).write_text(json.dumps(found))
    print(f"{len(found)} results -> {args.out}")


if __name__ == "__main__":
    main()
