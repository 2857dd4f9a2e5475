#!/usr/bin/env python3
"""Record streamed chat derenders whose chunks carry token ids past 32 bits from vLLM 0.33.0.

vLLM's engine parsers decode a chunk's ids one by one whenever their plain-text fast path does
not take the chunk (a marker id, a literal's first character, text held back from the chunk
before); an id past 32 bits (or a negative one) then fails the chunk with a 400, while the
detokenizer alone reads it as no text. Each config of `--configs` gets the same chunk sequences (synthetic-multi and
qwen3 share Qwen's vocabulary): plain text, `<`, marker and special tokens, each followed by
such an id, with and without request tools. Stored in the shared corpus format (family
`stream`, ids `<config>-<scenario>`).
"""

from __future__ import annotations

from typing import Any

import httpx
from vllm_recording import answer, load_configs, recorder_arguments, vllm_servers, write_records

WIDE = 5_000_000_000
HELLO, LT = 9707, 27  # "Hello", "<"
# <tool_call>, <think>, </think>, <|tool_calls_section_begin|>, <|tool_call_begin|>,
# <minimax:tool_call>, <seed:think>, <tool_calls>, <|im_end|>
MARKERS = (151657, 151667, 151668, 151669, 151671, 151688, 151690, 151696, 151645)
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]


def _chunk(*ids: int) -> dict[str, Any]:
    return {"choices": [{"index": 0, "token_ids": list(ids)}]}


def sequences() -> dict[str, list[dict[str, Any]]]:
    seqs = {
        "wide": [_chunk(WIDE)],
        "text_wide": [_chunk(HELLO, WIDE)],
        "lt_wide": [_chunk(LT, WIDE)],
        "lt_then_wide": [_chunk(LT), _chunk(WIDE)],
        "lt_then_text_wide": [_chunk(LT), _chunk(HELLO, WIDE)],
        "text_then_lt_wide": [_chunk(HELLO), _chunk(LT, WIDE)],
        "past_vocab_lt": [_chunk(LT, 4_000_000_000)],
        "negative_text": [_chunk(HELLO, -5)],
        "negative_lt": [_chunk(LT, -5)],
        "negative_think": [_chunk(151667, -5)],
        "int64_lt": [_chunk(LT, 2**63)],
    }
    for marker in MARKERS:
        seqs[f"m{marker}_wide"] = [_chunk(marker, WIDE)]
        seqs[f"m{marker}_then_text_wide"] = [_chunk(marker), _chunk(HELLO, WIDE)]
        seqs[f"m{marker}_then_lt_wide"] = [_chunk(marker), _chunk(LT, WIDE)]
    return seqs


def cases(served_name: str) -> list[dict[str, Any]]:
    out = []
    for scenario, chunks in sequences().items():
        for label, extra in (("tools", {"tools": TOOLS}), ("notools", {})):
            base = {
                "model": served_name,
                "chat_request": {"messages": [{"role": "user", "content": "x"}], **extra},
                "prompt_token_ids": [87],
            }
            out.append({
                "scenario": f"{scenario}-{label}",
                "endpoint": "/v1/chat/completions/derender",
                "method": "POST",
                "request": {"kind": "stream", "base": base, "chunks": chunks},
            })  # fmt: skip
    return out


def main() -> int:
    args = recorder_arguments(
        __doc__.splitlines()[0], configs="tests/golden/configs-wideids.json",
        out="tests/golden/vllm-wideids.jsonl", port=20830,
    )  # fmt: skip
    records: list[dict[str, Any]] = []
    for name, config, url in vllm_servers(args, load_configs(args.configs)):
        with httpx.Client(timeout=120) as client:
            for case in cases(config["served_model_name"]):
                record = {"id": f"{name}-{case['scenario']}", "family": "stream", "config": name, **case}
                answer(client, url, record)
                if any(status >= 500 for status in record["status"]):
                    print(f"[{name}] {case['scenario']}: vLLM answered 5xx, dropped", flush=True)
                    continue
                records.append(record)
    write_records(args.out, records)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
