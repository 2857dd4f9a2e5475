#!/usr/bin/env python3
"""Random /tokenize and /detokenize requests sent to a vLLM 0.33.0 render server and to
tokenfront, answers compared.

Prompts and chat conversations (`render_diff.messages`, tools, template flags, token strings
asked for or not) for /tokenize; ids for /detokenize: the ids of drawn text, special tokens,
single bytes of a multi-byte character, ids past the vocabulary. Answers are compared with the
shared harness's rules, as `render_diff` does.

    python scripts/tokenize_diff.py VLLM_URL TF_URL MODEL_NAME [--seed S] [-n N]
    python scripts/tokenize_diff.py --configs ../shared/parity/configs.json \\
        --vllm-cmd '...' --tf-cmd '...' -n 60          # start both servers per config
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from render_diff import PHRASES, TOOLS, compare_drawn, messages, url_or_sweep_main  # noqa: E402

# ids worth decoding on their own: low ids (bytes on byte-level vocabularies), Qwen / Llama
# special and byte-fallback ranges, ids past every vocabulary here
ODD_IDS = [0, 1, 2, 3, 13, 198, 220, 151643, 151644, 151645, 151667, 151668, 128000, 128009,
           200000, 10**6]


def tokenize_request(rng: random.Random, model: str) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model} if rng.random() < 0.9 else {}
    if rng.random() < 0.5:
        body["prompt"] = rng.choice(PHRASES) + rng.choice(["", " ", "\n", rng.choice(PHRASES)])
        if rng.random() < 0.4:
            body["add_special_tokens"] = rng.choice([True, False])
    else:
        body["messages"] = messages(rng)
        if rng.random() < 0.3:
            body["tools"] = rng.sample(TOOLS, rng.randint(1, 2))
        if rng.random() < 0.3:
            body["add_generation_prompt"] = rng.choice([True, False])
        if body["messages"][-1]["role"] == "assistant" and rng.random() < 0.3:
            body["add_generation_prompt"] = False
            body["continue_final_message"] = True
        if rng.random() < 0.2:
            body["chat_template_kwargs"] = {"enable_thinking": rng.choice([True, False])}
        if rng.random() < 0.15:
            body["add_special_tokens"] = rng.choice([True, False])
    if rng.random() < 0.5:
        body["return_token_strs"] = rng.choice([True, False])
    return body


def detokenize_request(rng: random.Random, model: str, ids_of: dict[str, list[int]]) -> dict[str, Any]:
    pool = [i for ids in ids_of.values() for i in ids] or [1, 2, 3]
    tokens: list[int] = []
    for _ in range(rng.randint(0, 4)):
        kind = rng.random()
        if kind < 0.5:
            tokens += rng.choice(list(ids_of.values()) or [[5]])
        elif kind < 0.8:
            tokens.append(rng.choice(ODD_IDS))
        else:
            start = rng.randrange(len(pool))
            tokens += pool[start : start + rng.randint(1, 3)]
    return {"model": model, "tokens": tokens}


def compare(vllm: str, tf: str, model: str, seed: int, n: int, config: str = "",
            record: Path | None = None, record_all: bool = False) -> int:
    import httpx

    ids_of: dict[str, list[int]] = {}
    with httpx.Client(timeout=60) as client:
        for phrase in PHRASES:
            answer = client.post(f"{vllm}/tokenize", json={"model": model, "prompt": phrase,
                                                           "add_special_tokens": False})
            if answer.status_code == 200:
                ids_of[phrase] = answer.json()["tokens"]

    def draw(rng: random.Random) -> tuple[str, dict[str, Any], str]:
        if rng.random() < 0.6:
            return "/tokenize", tokenize_request(rng, model), "tokenize"
        return "/detokenize", detokenize_request(rng, model, ids_of), "tokenize"

    return compare_drawn(vllm, tf, draw, seed, n, config, record, record_all, "tkz", "tokenize_fuzz")


def main() -> int:
    return url_or_sweep_main(__doc__, compare, n=60, port=8591, logs="/tmp/tokenize-diff-logs")


if __name__ == "__main__":
    raise SystemExit(main())
