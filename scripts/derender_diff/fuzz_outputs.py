#!/usr/bin/env python3
"""Random model outputs on every config, vLLM 0.33.0 and tokenfront side by side.

Where fuzz_mechanics varies the request around a few well-formed outputs, this varies the
output: each one joins random pieces in the config's own formats (whole, cut and malformed
calls, reasoning markers, markers of other formats, prose with `<` and braces, whitespace),
sometimes with the end-of-sequence id in the middle, and goes through a one-shot or a streamed
chat derender (random chunk sizes) with or without tools, under a random tool_choice /
include_reasoning / enable_thinking / skip_special_tokens, sometimes behind a prompt that ends
with the reasoning start marker. Answers are compared with the shared harness (`paritylib`).

    python scripts/derender_diff/fuzz_outputs.py --only syn-glm45 -n 200 --seed 1 \\
        --vllm-cmd '...' --tf-cmd '...' [--record FILE]
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fuzz_mechanics import ROOT, _flag, compare_made, gc  # noqa: E402

sys.path.insert(0, str(ROOT / "scripts"))
from render_diff import sweep_main  # noqa: E402

PROSE = ["Let me check.", "Sure", " ", "\n", "\n\n", "Done.", "a <b>bold</b> tag", "x < y > z",
         '{"k": 1}', "[1, 2]", "東京 ☀️", "</", "<", "functools", "Here is"]
OTHER_MARKERS = ["<tool_call>", "</tool_call>", "<think>", "</think>", "[TOOL_CALLS]",
                 "<|python_tag|>", "<function=get_weather>", "<arg_key>", "```json\n"]


def output_pieces(cfg: dict[str, Any]) -> list[Callable[[random.Random], str]]:
    """Makers of output pieces in the config's formats."""
    args = list(cfg.get("args", []))
    makers: list[Callable[[random.Random], str]] = [
        lambda rng: rng.choice(PROSE), lambda rng: rng.choice(PROSE), lambda rng: rng.choice(OTHER_MARKERS),
    ]
    fmt = gc.FORMATS.get(_flag(args, "--tool-call-parser") or "")
    if fmt and fmt.calls:
        write = fmt.calls
        whole = [write(gc.ONE), write(gc.PARALLEL), write(gc.NESTED)]
        makers += [lambda rng: rng.choice(whole)] * 3
        makers.append(lambda rng: (lambda t: t[: rng.randrange(1, len(t))])(rng.choice(whole)))
        if fmt.malformed:
            malformed = fmt.malformed
            makers.append(lambda rng: malformed)
    think = gc.REASONING_FORMATS.get(_flag(args, "--reasoning-parser") or "")
    if think:
        start, end = think
        makers += [lambda rng: start, lambda rng: end,
                   lambda rng: f"{start}{rng.choice(PROSE)}{end}"]
    return makers


def make_output(rng: random.Random, makers: list[Callable[[random.Random], str]],
                tokenize: Callable[[str], list[int]], eos: int) -> list[int]:
    ids: list[int] = []
    for _ in range(rng.randint(1, 5)):
        ids += tokenize(rng.choice(makers)(rng))
        if rng.random() < 0.05:
            ids.append(eos)
    return ids or tokenize("Hi")


def _chunks(rng: random.Random, ids: list[int], finish: str) -> list[dict[str, Any]]:
    steps = [len(ids)] if rng.random() < 0.1 else None
    out, at = [], 0
    while at < len(ids):
        step = steps[0] if steps else rng.choice([1, 1, 1, 2, 3, 5, 8])
        piece: dict[str, Any] = {"index": 0, "token_ids": ids[at : at + step]}
        at += step
        if at >= len(ids):
            piece["finish_reason"] = finish
        out.append({"request_id": "gen-stream", "choices": [piece]})
    return out


def make_case(rng: random.Random, name: str, cfg: dict[str, Any], tokenize: Callable[[str], list[int]],
              eos: int, makers: list[Callable[[random.Random], str]], i: int) -> dict[str, Any]:
    return output_case(rng, name, cfg, tokenize, eos, make_output(rng, makers, tokenize, eos), i)


def output_case(rng: random.Random, name: str, cfg: dict[str, Any], tokenize: Callable[[str], list[int]],
                eos: int, ids: list[int], i: int, scenario: str = "outputs") -> dict[str, Any]:
    """A one-shot or streamed chat derender case of output `ids` under random request options."""
    model = cfg["served_model_name"]
    if rng.random() < 0.5:
        ids = [*ids, eos]
    finish = rng.choice(["stop", "stop", "length"])
    req: dict[str, Any] = {"model": model, "messages": [{"role": "user", "content": "Weather in Paris?"}]}
    if rng.random() < 0.7:
        req["tools"] = gc.TOOLS
        if rng.random() < 0.4:
            req["tool_choice"] = rng.choice(["none", "auto", "required",
                                             {"type": "function", "function": {"name": "get_weather"}}])
    for key, value in (("include_reasoning", False), ("skip_special_tokens", False),
                       ("chat_template_kwargs", {"enable_thinking": False}),
                       ("chat_template_kwargs", {"thinking": True})):
        if rng.random() < 0.1:
            req[key] = value
    prompt_ids = tokenize("Weather in Paris?")
    think = gc.REASONING_FORMATS.get(_flag(list(cfg.get("args", [])), "--reasoning-parser") or "")
    if think and rng.random() < 0.3:
        prompt_ids = prompt_ids + tokenize(think[0])
    base: dict[str, Any] = {"model": model, "chat_request": req, "prompt_token_ids": prompt_ids,
                            "prompt_tokens": len(prompt_ids)}
    endpoint = "/v1/chat/completions/derender"
    if rng.random() < 0.4:
        body = dict(base, generate_response={"request_id": f"gen-{i}", "choices": [
            {"index": 0, "token_ids": ids, "finish_reason": finish}]})
        return {"id": f"{scenario}-{name}-{i}", "family": "derender-chat", "config": name,
                "endpoint": endpoint, "method": "POST", "request": body, "scenario": scenario}
    return {"id": f"{scenario}-{name}-{i}", "family": "stream", "config": name, "endpoint": endpoint,
            "method": "POST", "request": {"kind": "stream", "base": base, "chunks": _chunks(rng, ids, finish)},
            "scenario": scenario}


def run(name: str, cfg: dict[str, Any], vllm: str, tf: str, n: int, seed: int,
        record: Path | None, record_all: bool = False) -> int:
    rng = random.Random(f"{seed}-{name}-outputs")
    makers = output_pieces(cfg)
    return compare_made(
        name, cfg, vllm, tf, n,
        lambda i, tokenize, eos: make_case(rng, name, cfg, tokenize, eos, makers, i),
        record, record_all,
    )


def main() -> int:
    return sweep_main(__doc__, run, n=100, port=8621, logs="/tmp/outputs-logs")


if __name__ == "__main__":
    raise SystemExit(main())
