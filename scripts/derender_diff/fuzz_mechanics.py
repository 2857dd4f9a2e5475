#!/usr/bin/env python3
"""Derender mechanics on every config, vLLM 0.33.0 and tokenfront side by side.

Model outputs in each config's own format (scripts/golden_cases.py: plain text, a call, text
and a call, reasoning, multibyte text, special tokens) go through derender requests that vary
what surrounds the parsers: logprobs with top entries, stop strings cut from the text itself
(with and without include_stop_str_in_output), stop_token_ids, finish reasons stop / length /
abort with stop_reason, two choices, skip_special_tokens, return_token_ids, echo, tool_choice,
include_reasoning; chat and completion, one-shot and streamed in random chunks. Both servers
run the config's flags; answers are compared with the shared harness (`paritylib`).

    python scripts/derender_diff/fuzz_mechanics.py --only qwen3-hermes -n 150 --seed 1 \\
        --vllm-cmd '...' --tf-cmd '...' [--record FILE]
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(SHARED / "parity"))
import golden_cases as gc  # noqa: E402
import paritylib  # type: ignore[import-not-found]  # noqa: E402
from render_diff import model_dir, sweep_main  # noqa: E402

EXTRA_TEXTS = ["Crisp leaves 🍂 falling\nwhispers 東京 naïve", "Hello! How can I help you today?",
               "a  b\n\n\tc", "x" * 40]


def _flag(args: list[str], flag: str) -> str | None:
    return args[args.index(flag) + 1] if flag in args else None


def texts_for(cfg: dict[str, Any]) -> list[str]:
    args = list(cfg.get("args", []))
    out = list(EXTRA_TEXTS)
    tool = _flag(args, "--tool-call-parser")
    if tool in gc.FORMATS and gc.FORMATS[tool].calls:
        write = gc.FORMATS[tool].calls
        out += [write(gc.ONE), "Let me check.\n" + write(gc.ONE), write(gc.PARALLEL)]
    think = gc.REASONING_FORMATS.get(_flag(args, "--reasoning-parser") or "")
    if think:
        out += [f"{think[0]}Thinking it over.{think[1]}The answer is 42.", f"{think[0]}cut short"]
    return out


def _logprobs(rng: random.Random, ids: list[int], k: int, vocab: int) -> dict[str, Any]:
    entries = []
    for t in ids:
        lp = -round(rng.random() * 3, 4)
        tops = [{"token_id": t, "logprob": lp, "rank": 1}]
        tops += [{"token_id": rng.randrange(vocab), "logprob": lp - 1 - i, "rank": i + 2} for i in range(k)]
        entries.append({"token_id": t, "logprob": lp, "rank": 1, "top_logprobs": tops})
    return {"content": entries}


def make_case(rng: random.Random, name: str, cfg: dict[str, Any], tokenize: Any, eos: int,
              texts: list[str], i: int) -> dict[str, Any]:
    model = cfg["served_model_name"]
    text = rng.choice(texts)
    ids = tokenize(text)
    if rng.random() < 0.6:
        ids = ids + [eos]
    chat = rng.random() < 0.75
    req: dict[str, Any] = {}
    if rng.random() < 0.3:
        cut = text[rng.randrange(len(text)):][: rng.randint(1, 6)] or "zz"
        req["stop"] = rng.choice([cut, [cut, "NEVER"], "NEVER"])
        if rng.random() < 0.5:
            req["include_stop_str_in_output"] = rng.choice([True, False])
    if rng.random() < 0.15 and ids:
        req["stop_token_ids"] = [rng.choice(ids)]
    for key, values in (("skip_special_tokens", [False]), ("spaces_between_special_tokens", [False]),
                        ("return_token_ids", [True]), ("min_tokens", [2, 50]), ("max_tokens", [3, 1000])):
        if rng.random() < 0.12:
            req[key] = rng.choice(values)
    k = rng.choice([0, 0, 1, 3])
    want_lp = rng.random() < 0.3
    finish = rng.choice(["stop", "stop", "stop", "length", "abort"])
    choice: dict[str, Any] = {"index": 0, "token_ids": ids, "finish_reason": finish}
    if finish == "stop" and rng.random() < 0.3:
        choice["stop_reason"] = rng.choice([eos, "END", None])
    if chat:
        req.update({"model": model, "messages": [{"role": "user", "content": "Weather in Paris?"}]})
        if rng.random() < 0.6:
            req["tools"] = gc.TOOLS
            if rng.random() < 0.3:
                req["tool_choice"] = rng.choice(["none", "auto", "required",
                                                 {"type": "function", "function": {"name": "get_weather"}}])
        if rng.random() < 0.1:
            req["include_reasoning"] = False
        if want_lp:
            req["logprobs"] = True
            req["top_logprobs"] = k
        if rng.random() < 0.15:
            req["n"] = 2
    else:
        req.update({"prompt": "Weather in Paris?"})
        if want_lp:
            req["logprobs"] = k
        if rng.random() < 0.2:
            req["echo"] = True
    vocab = 20000
    if want_lp:
        choice["logprobs"] = _logprobs(rng, ids, k, vocab)
    choices = [choice]
    if req.get("n") == 2:
        other = tokenize(rng.choice(texts)) + [eos]
        second: dict[str, Any] = {"index": 1, "token_ids": other, "finish_reason": "stop"}
        if want_lp:
            second["logprobs"] = _logprobs(rng, other, k, vocab)
        choices.append(second)
    prompt_ids = tokenize("Weather in Paris?")
    stream = rng.random() < 0.35
    endpoint = "/v1/chat/completions/derender" if chat else "/v1/completions/derender"
    gen = {"request_id": f"gen-{i}", "choices": choices}
    if chat:
        base: dict[str, Any] = {"model": model, "chat_request": req, "prompt_token_ids": prompt_ids,
                                "prompt_tokens": len(prompt_ids)}
    else:
        base = {"model": model, "completion_request": req, "prompt_token_ids": [prompt_ids],
                "prompt_tokens": [len(prompt_ids)]}
    if not stream:
        body = dict(base)
        if chat:
            body["generate_response"] = gen
        else:
            body["generate_responses"] = [gen]
        family = "derender-chat" if chat else "derender-completion"
        return {"id": f"mech-{name}-{i}", "family": family, "config": name, "endpoint": endpoint,
                "method": "POST", "request": body, "scenario": "mechanics"}
    if not chat:
        base["prompt_token_ids"] = prompt_ids
        base["prompt_tokens"] = len(prompt_ids)
    chunks = []
    for c in choices:
        at, toks = 0, c["token_ids"]
        while at < len(toks):
            step = rng.choice([1, 1, 2, 3, 5])
            piece: dict[str, Any] = {"index": c["index"], "token_ids": toks[at : at + step]}
            if "logprobs" in c:
                piece["logprobs"] = {"content": c["logprobs"]["content"][at : at + step]}
            at += step
            if at >= len(toks):
                piece["finish_reason"] = c["finish_reason"]
                if "stop_reason" in c:
                    piece["stop_reason"] = c["stop_reason"]
            chunks.append({"request_id": "gen-stream", "choices": [piece]})
    return {"id": f"mech-{name}-{i}", "family": "stream", "config": name, "endpoint": endpoint,
            "method": "POST", "request": {"kind": "stream", "base": base, "chunks": chunks},
            "scenario": "mechanics"}


def eos_id(cfg: dict[str, Any]) -> int:
    folder = model_dir(cfg["model"])
    eos = None
    for name in ("generation_config.json", "config.json"):
        if eos is None and (folder / name).is_file():
            eos = json.loads((folder / name).read_text()).get("eos_token_id")
    return eos[0] if isinstance(eos, list) else eos


def vllm_tokenizer(client: httpx.Client, vllm: str, cfg: dict[str, Any]) -> Callable[[str], list[int]]:
    """Text -> ids as the vLLM server encodes it (no special tokens added)."""
    def tokenize(text: str) -> list[int]:
        r = client.post(vllm + "/tokenize", json={"model": cfg["served_model_name"], "prompt": text,
                                                  "add_special_tokens": False})
        return list(r.json()["tokens"])

    return tokenize


def compare_cases(
    name: str, cases: Iterable[dict[str, Any]], client: httpx.Client, vllm: str, tf: str,
    record: Path | None, *, record_all: bool = False,
    flag: Callable[[dict[str, Any]], str | None] = lambda got: None,
    show: Callable[[dict[str, Any], dict[str, Any], dict[str, Any]], None] = lambda c, g, t: None,
) -> int:
    """Run each case on both servers; print and keep (vLLM's answer in the case) the ones that
    differ, or that `flag` names; append the kept ones (all with `record_all`) to `record`."""
    bad = total = 0
    kept = []
    for case in cases:
        try:
            golden = paritylib.run_case(client, vllm, case)
            got = paritylib.run_case(client, tf, case)
        except TypeError:  # the harness keys stream states by the (fuzzed) choice index
            continue
        total += 1
        case["status"], case["response"] = golden["status"], golden["response"]
        diffs = paritylib.compare_result(case, case, got)
        note = flag(got)
        if diffs or note:
            bad += 1
            print(f"[{name}] {case['id']} {case['family']} {case.get('scenario', '')}")
            print("   req:", json.dumps(case["request"], ensure_ascii=False)[:500])
            for d in (diffs or [note])[:5]:
                print("   ", str(d)[:300])
            show(case, golden, got)
        if diffs or note or record_all:
            kept.append(case)
    if record and kept:
        with record.open("a", encoding="utf-8") as fh:
            fh.writelines(json.dumps(c, ensure_ascii=False) + "\n" for c in kept)
    print(f"[{name}] {total - bad}/{total} same", flush=True)
    return bad


def compare_made(
    name: str, cfg: dict[str, Any], vllm: str, tf: str, n: int,
    make: Callable[[int, Callable[[str], list[int]], int], dict[str, Any]],
    record: Path | None, record_all: bool = False,
) -> int:
    """`n` cases `make(i, tokenize, eos_id)` (tokenize: the vLLM server's encoding) run on both
    servers and compared (`compare_cases`)."""
    eos = eos_id(cfg)
    with httpx.Client(timeout=120) as client:
        tokenize = vllm_tokenizer(client, vllm, cfg)
        cases = (make(i, tokenize, eos) for i in range(n))
        return compare_cases(name, cases, client, vllm, tf, record, record_all=record_all)


def run(name: str, cfg: dict[str, Any], vllm: str, tf: str, n: int, seed: int,
        record: Path | None, record_all: bool = False) -> int:
    rng = random.Random(f"{seed}-{name}")
    texts = texts_for(cfg)
    return compare_made(
        name, cfg, vllm, tf, n,
        lambda i, tokenize, eos: make_case(rng, name, cfg, tokenize, eos, texts, i),
        record, record_all,
    )


def main() -> int:
    return sweep_main(__doc__, run, n=100, port=8601, logs="/tmp/mech-logs")


if __name__ == "__main__":
    raise SystemExit(main())
