#!/usr/bin/env python3
"""Dev check: `render/json_schema_ebnf.py` against xgrammar 0.2.8, feature by feature.

Run with the recording venv, which has xgrammar (never a tokenfront dependency):
    /work/vllm-venv/bin/python scripts/fuzz_xgrammar_schema.py [--count N] [--seed S]
        [--feature F ...] [--record K] [--show N]
Schemas come from tests/render/xgrammar_schema_gen.py. A case passes when both sides print the
same grammar, or xgrammar fails and tokenfront raises `SchemaRejected` with xgrammar's message.
`--record K` rewrites tests/render/fixtures/xgrammar_schemas.jsonl.gz with the first K reproduced
cases of each feature (the grammar without the fixed built-in rules), replayed in CI.
"""

from __future__ import annotations

import argparse
import difflib
import gzip
import json
import random
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests" / "render"))

import xgrammar_schema_gen as gen  # noqa: E402

from tokenfront.render.json_schema_ebnf import SchemaRejected, UnsupportedSchema, schema_to_ebnf  # noqa: E402

FIXTURE = ROOT / "tests" / "render" / "fixtures" / "xgrammar_schemas.jsonl.gz"
_ERROR = re.compile(r"^\[[0-9:]+\] \S+:[0-9]+: (.*)$", re.S)


def xgrammar_answer(xgr: Any, schema: dict[str, Any]) -> tuple[str, str]:
    try:
        return "grammar", str(xgr.Grammar.from_json_schema(json.dumps(schema)))
    except RuntimeError as exc:
        found = _ERROR.match(str(exc).strip())
        return "error", (found.group(1) if found else str(exc)).strip()


def own_answer(schema: dict[str, Any]) -> tuple[str, str]:
    try:
        return "grammar", schema_to_ebnf(schema)
    except SchemaRejected as exc:
        return "error", str(exc)
    except UnsupportedSchema as exc:
        return "unsupported", str(exc)


def main() -> int:
    import xgrammar as xgr  # type: ignore[import-not-found]

    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--feature", nargs="*", default=list(gen.FEATURES))
    parser.add_argument("--record", type=int, default=0)
    parser.add_argument("--show", type=int, default=3)
    args = parser.parse_args()
    recorded: list[dict[str, Any]] = []
    failed = False
    for feature in args.feature:
        rng = random.Random(f"{feature}-{args.seed}")
        same = errors = unsupported = differ = 0
        reasons: dict[str, int] = {}
        kept = 0
        for _ in range(args.count):
            schema = gen.generate(feature, rng)
            want = xgrammar_answer(xgr, schema)
            got = own_answer(schema)
            if got[0] == "unsupported":
                unsupported += 1
                reasons[got[1]] = reasons.get(got[1], 0) + 1
                continue
            if got == want:
                same += want[0] == "grammar"
                errors += want[0] == "error"
                if kept < args.record:
                    kept += 1
                    recorded.append({"feature": feature, "schema": schema, want[0]: want[1]})
                continue
            differ += 1
            if differ <= args.show:
                print(f"=== {feature} differs: {json.dumps(schema, ensure_ascii=False)}")
                if want[0] == got[0] == "grammar":
                    print("\n".join(difflib.unified_diff(want[1].splitlines(), got[1].splitlines(),
                                                         "xgrammar", "tokenfront", lineterm="", n=0)))
                else:
                    print(f"xgrammar {want[0]}: {want[1][:300]}\ntokenfront {got[0]}: {got[1][:300]}")
        failed |= differ > 0
        print(f"{feature}: {args.count} schemas, {same} same grammar, {errors} same error, "
              f"{differ} differ, {unsupported} outside the subset")
        if reasons and args.show:
            print("  outside:", sorted(reasons.items(), key=lambda kv: -kv[1])[:8])
    if args.record:
        FIXTURE.parent.mkdir(parents=True, exist_ok=True)
        with gzip.open(FIXTURE, "wt", encoding="utf-8") as out:
            for case in recorded:
                if "grammar" in case:
                    case["grammar"] = strip_builtins(case["grammar"])
                out.write(json.dumps(case, ensure_ascii=False) + "\n")
        print(f"{len(recorded)} cases -> {FIXTURE}")
    return 1 if failed else 0


def strip_builtins(text: str) -> str:
    """The grammar without xgrammar's fixed built-in rules (`basic_*`), which never change."""
    return "\n".join(line for line in text.splitlines() if not line.startswith("basic_"))


if __name__ == "__main__":
    raise SystemExit(main())
