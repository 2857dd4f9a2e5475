"""Rebuild OpenAI's `o200k_base.tiktoken` from the ranks bundled in the npm package js-tiktoken.

js-tiktoken ships `dist/ranks/o200k_base.js` as `export default {..., "bpe_ranks": "..."}` where
`bpe_ranks` holds lines `<tag> <first-rank> <b64 token> <b64 token> ...` (consecutive ranks from
`first-rank`). This writes the standard file (`<b64 token> <rank>` per line, rank order), checks
it against the official sha256, and optionally writes the compact source the gpt-oss test model
is built from (`tests/models/gpt-oss-src/o200k_base.bytes.xz`: each token's bytes, rank order,
with a one-byte length prefix, xz-compressed).

    python scripts/o200k_from_js_tiktoken.py package/dist/ranks/o200k_base.js OUT.tiktoken \
        [--compact tests/models/gpt-oss-src/o200k_base.bytes.xz]
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import lzma
from pathlib import Path

OFFICIAL_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"


def ranks_from_js(source: str) -> dict[str, int]:
    """Token (base64) -> rank, from js-tiktoken's module text."""
    data = json.loads(source[source.index("{") : source.rindex("}") + 1])
    ranks: dict[str, int] = {}
    for line in data["bpe_ranks"].split("\n"):
        if not line:
            continue
        fields = line.split(" ")
        first = int(fields[1])
        for offset, token in enumerate(fields[2:]):
            ranks[token] = first + offset
    return ranks


def tiktoken_text(ranks: dict[str, int]) -> str:
    return "".join(f"{token} {rank}\n" for token, rank in sorted(ranks.items(), key=lambda kv: kv[1]))


def compact_bytes(ranks: dict[str, int]) -> bytes:
    ordered = sorted(ranks.items(), key=lambda kv: kv[1])
    if [rank for _, rank in ordered] != list(range(len(ordered))):
        raise ValueError("ranks are not contiguous from 0")
    out = bytearray()
    for token, _ in ordered:
        raw = base64.b64decode(token)
        out.append(len(raw))
        out += raw
    return bytes(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("js_module", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--compact", type=Path)
    args = ap.parse_args()
    ranks = ranks_from_js(args.js_module.read_text(encoding="utf-8"))
    text = tiktoken_text(ranks)
    digest = hashlib.sha256(text.encode()).hexdigest()
    if digest != OFFICIAL_SHA256:
        raise SystemExit(f"sha256 {digest} differs from the official {OFFICIAL_SHA256}")
    args.out.write_text(text, encoding="utf-8")
    print(f"{args.out}: {len(ranks)} ranks, sha256 {digest} (official)")
    if args.compact:
        args.compact.write_bytes(lzma.compress(compact_bytes(ranks), preset=9 | lzma.PRESET_EXTREME))
        print(f"{args.compact}: {args.compact.stat().st_size} bytes")


if __name__ == "__main__":
    main()
