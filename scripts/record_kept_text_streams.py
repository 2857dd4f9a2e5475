#!/usr/bin/env python3
"""Record streamed chat derenders of text the engine tool parsers keep, from vLLM 0.33.0.

With reasoning on, the text after the reasoning goes through the tool parser's engine even when
the request declares no tools; its content state drops a repeated `</think>` and stray special
tokens (`<|im_end|>`), holds a possible marker start (`<`) and whitespace-only text. Each
config of `--configs` streams the same texts, one chunk per piece (each piece tokenized by the
server), with and without request tools. Stored in the shared corpus format (family `stream`,
ids `<config>-<scenario>-<tools|notools>`). Not recorded, as tokenfront does not reproduce them
(docs/deviations.md, "Not reproduced"): a `<think>` in the kept text (glm45 reopens the
reasoning) and a `</think>` spelled by ordinary tokens (text to vLLM's token-id terminals).
"""

from __future__ import annotations

from typing import Any

import httpx
from vllm_recording import answer, load_configs, recorder_arguments, vllm_servers, write_records

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]

# scenario -> the output's pieces, one chunk each
PIECES: dict[str, list[str]] = {
    "repeated_end": ["<think>r</think>", " x</think>", " y"],
    "repeated_end_one_chunk": ["<think>r</think> x</think> y"],
    "empty_reasoning_repeated_end": ["<think>\n</think>", "</think>Let", " me check."],
    "end_then_stray_special": ["<think>r</think>", " x<|im_end|>", " y"],
    "end_then_whitespace": ["<think>r</think>", "\n\n", "</think>", "Done."],
    "end_then_lt": ["<think>r</think>", " a <", "b> c"],
}


def _tokenize(client: httpx.Client, url: str, model: str, text: str) -> list[int]:
    body = {"model": model, "prompt": text, "add_special_tokens": False}
    return list(client.post(url + "/tokenize", json=body).json()["tokens"])


def _record(name: str, config: dict[str, Any], scenario: str, chunks: list[list[int]],
            tools: bool) -> dict[str, Any]:
    request: dict[str, Any] = {"messages": [{"role": "user", "content": "x"}]}
    if tools:
        request["tools"] = TOOLS
    stream = [{"choices": [{"index": 0, "token_ids": ids}]} for ids in chunks]
    stream[-1]["choices"][0]["finish_reason"] = "stop"
    suffix = "tools" if tools else "notools"
    return {
        "id": f"{name}-{scenario}-{suffix}",
        "family": "stream",
        "config": name,
        "scenario": f"kept-{scenario}",
        "endpoint": "/v1/chat/completions/derender",
        "method": "POST",
        "request": {
            "kind": "stream",
            "base": {"model": config["served_model_name"], "chat_request": request,
                     "prompt_token_ids": [87]},
            "chunks": stream,
        },
    }


def main() -> int:
    args = recorder_arguments(__doc__.splitlines()[0], configs="tests/golden/configs-keptthink.json",
                              out="tests/golden/vllm-keptthink.jsonl", port=8691)
    records = []
    with httpx.Client(timeout=60) as client:
        for name, config, url in vllm_servers(args, load_configs(args.configs)):
            model = config["served_model_name"]
            for scenario, pieces in PIECES.items():
                chunks = [_tokenize(client, url, model, piece) for piece in pieces]
                for tools in (False, True):
                    records.append(answer(client, url, _record(name, config, scenario, chunks, tools)))
    write_records(args.out, records)
    print(f"{len(records)} records -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
