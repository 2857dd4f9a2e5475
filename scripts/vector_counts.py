"""Rewrite the Counts table of tests/parsers/vllm_vectors/README.md from the vector files."""

from __future__ import annotations

import json
from pathlib import Path

FOLDER = Path(__file__).resolve().parents[1] / "tests" / "parsers" / "vllm_vectors"
README = FOLDER / "README.md"
HEADER = "| file | tool | reasoning | xfail | vllm_033_differs | derived |"


def table() -> str:
    rows = [HEADER, "| --- | --- | --- | --- | --- | --- |"]
    totals = [0] * 5
    for path in sorted(FOLDER.glob("*.json")):
        vectors = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(vectors, dict):
            vectors = vectors.get("vectors", [])
        counts = [
            sum(v.get("kind") == "tool" for v in vectors),
            sum(v.get("kind") == "reasoning" for v in vectors),
            sum(bool(v.get("xfail")) for v in vectors),
            sum(bool(v.get("vllm_033_differs")) for v in vectors),
            sum(bool(v.get("derived")) for v in vectors),
        ]
        totals = [a + b for a, b in zip(totals, counts, strict=True)]
        rows.append(f"| {path.stem} | " + " | ".join(map(str, counts)) + " |")
    rows.append("| **total** | " + " | ".join(f"**{n}**" for n in totals) + " |")
    return "\n".join(rows)


def main() -> None:
    text = README.read_text(encoding="utf-8")
    head, _, rest = text.partition("## Counts\n")
    body = rest.split("\n## ", 1)
    tail = "\n## " + body[1] if len(body) > 1 else ""
    README.write_text(f"{head}## Counts\n\n{table()}\n{tail}", encoding="utf-8")
    print(f"rewrote the Counts table of {README}")


if __name__ == "__main__":
    main()
