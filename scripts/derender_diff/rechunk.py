#!/usr/bin/env python3
"""Re-chunk a recorded stream case and compare vLLM 0.33.0 and tokenfront on it.

A sweep (fuzz_outputs, fuzz_damaged, ...) records each differing case with `--record FILE`.
Sending its output again in chunks of k tokens tells the two kinds of difference apart: a case
equal at one token per chunk and differing in several-token chunks is a per-chunk shape; one
that differs at one token per chunk is a reading difference. Both servers must already run
with the case's config (`../shared/parity/configs.json`).

    python scripts/derender_diff/rechunk.py compare VLLM_URL TF_URL REC.jsonl CASE_ID [k ...]
    python scripts/derender_diff/rechunk.py show URL REC.jsonl CASE_ID k
    python scripts/derender_diff/rechunk.py text REC.jsonl CASE_ID

k = 0 sends the chunks as recorded, k = 999 (any k past the output) the whole output in one
chunk. `compare` prints `same` or the differing paths (joined answers first), `show` the deltas
one server sends, `text` the case's chunks decoded with its config's tokenizer.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
sys.path.insert(0, str(SHARED / "parity"))
import paritylib  # type: ignore[import-not-found]  # noqa: E402

DEFAULT_CHUNKINGS = [0, 1, 2, 3, 999]


def load_case(record_file: str, case_id: str) -> dict[str, Any]:
    with open(record_file, encoding="utf-8") as lines:
        for line in lines:
            case = json.loads(line)
            if case["id"] == case_id:
                return case
    raise SystemExit(f"{case_id} is not in {record_file}")


def output_ids(case: dict[str, Any]) -> list[int]:
    if case["request"].get("kind") != "stream":
        raise SystemExit(f"{case['id']} is not a stream case")
    return [t for chunk in case["request"]["chunks"] for t in chunk["choices"][0]["token_ids"]]


def rechunk(case: dict[str, Any], k: int) -> dict[str, Any]:
    """The case with its output ids sent k per chunk (k = 0: as recorded)."""
    if k == 0:
        return case
    ids = output_ids(case)
    out = copy.deepcopy(case)
    chunks = out["request"]["chunks"]
    finish = chunks[-1]["choices"][0].get("finish_reason")
    template = chunks[0]
    rebuilt = []
    for start in range(0, len(ids), k):
        chunk = copy.deepcopy(template)
        choice = chunk["choices"][0]
        choice["token_ids"] = ids[start : start + k]
        choice["finish_reason"] = finish if start + k >= len(ids) else None
        rebuilt.append(chunk)
    out["request"]["chunks"] = rebuilt
    return out


def compare(vllm_url: str, tf_url: str, case: dict[str, Any], chunkings: list[int]) -> None:
    with httpx.Client(timeout=120) as client:
        for k in chunkings:
            sent = rechunk(case, k)
            golden = paritylib.run_case(client, vllm_url, sent)
            got = paritylib.run_case(client, tf_url, sent)
            problems = paritylib.compare_result(sent, golden, got)
            print(f"k={k}: {'same' if not problems else 'DIFF'}")
            joined = [p for p in problems if p.startswith("$.concat")]
            for line in (joined or problems)[:8]:
                print("   ", line)


def show(url: str, case: dict[str, Any], k: int) -> None:
    with httpx.Client(timeout=120) as client:
        result = paritylib.run_case(client, url, rechunk(case, k))
    for answer in result["response"]:
        body = answer.get("chunk", answer) if isinstance(answer, dict) else answer
        choices = body.get("choices") if isinstance(body, dict) else None
        if not choices:
            print(json.dumps(body, ensure_ascii=False)[:300])
            continue
        choice = choices[0]
        delta = json.dumps(choice.get("delta"), ensure_ascii=False)
        print(delta, choice.get("finish_reason") or "")


def text(case: dict[str, Any]) -> None:
    from tokenizers import Tokenizer

    configs = json.loads((SHARED / "parity" / "configs.json").read_text())
    model = SHARED / configs[case["config"]]["model"]
    tokenizer = Tokenizer.from_file(str(model / "tokenizer.json"))
    ids = output_ids(case)
    chunks = [c["choices"][0]["token_ids"] for c in case["request"]["chunks"]]
    print([tokenizer.decode(c, skip_special_tokens=False) for c in chunks])
    print(repr(tokenizer.decode(ids, skip_special_tokens=False)))


def main(argv: list[str]) -> None:
    if len(argv) >= 4 and argv[0] == "compare":
        vllm_url, tf_url, record_file, case_id = argv[1:5]
        chunkings = [int(k) for k in argv[5:]] or DEFAULT_CHUNKINGS
        compare(vllm_url, tf_url, load_case(record_file, case_id), chunkings)
    elif len(argv) == 5 and argv[0] == "show":
        show(argv[1], load_case(argv[2], argv[3]), int(argv[4]))
    elif len(argv) == 3 and argv[0] == "text":
        text(load_case(argv[1], argv[2]))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
