#!/usr/bin/env python3
"""Malformed requests on every endpoint, vLLM 0.33.0 and tokenfront side by side.

Valid requests are built first (derender cases from `fuzz_mechanics.make_case`, streamed ones
with a stream state taken from vLLM itself, chat / completion renders, /tokenize and
/detokenize), then one to three mutations are applied at random places of the JSON tree: a key
deleted, a value replaced by one of another type or out of range, an unknown key added, a list
emptied or grown. A few raw bodies (broken JSON, wrong content) are sent too. Answers are
compared with the shared harness's rules (errors by status, type and code; a mutation that stays
valid compares the whole answer). Both servers run the config's flags.

    python scripts/derender_diff/fuzz_errors.py --only qwen3-hermes -n 200 --seed 1 \\
        --vllm-cmd '...' --tf-cmd '...' [--record FILE [--record-all]]
"""

from __future__ import annotations

import copy
import json
import random
import sys
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "scripts" / "derender_diff"))
sys.path.insert(0, str(SHARED / "parity"))
from fuzz_mechanics import compare_cases, eos_id, make_case, texts_for, vllm_tokenizer  # noqa: E402
from render_diff import chat_request, completion_request, sweep_main  # noqa: E402

ODD_VALUES: list[Any] = [
    None, "", "x", "3", 0, -1, 1, 2, 7, 1.5, -0.5, True, False, [], {}, [1], ["a"], {"a": 1},
    2**31, 2**63, 2**70, -(2**40), 1e308, "null", [[1]], [None], {"content": []},
]
UNKNOWN_KEYS = ["foo", "extra", "stream", "n", "echo", "index", "logprobs", "token_ids", "model",
                "prompt", "messages", "tokens", "stream_state", "output_mode", "text"]
RAW_BODIES = ["", "{", "[]", "null", "123", '"s"', '{"model": ', "{}", "\x00", '{"a": NaN}']


def _paths(node: Any, path: tuple = ()) -> list[tuple]:
    out = [path]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node[:6]):
            out += _paths(v, path + (i,))
    return out


def _get(node: Any, path: tuple) -> Any:
    for p in path:
        node = node[p]
    return node


def mutate(rng: random.Random, root: Any) -> str:
    """Change `root` in place at one random place; return a description."""
    paths = [p for p in _paths(root) if p]
    if not paths:
        return "none"
    path = rng.choice(paths)
    parent, key = _get(root, path[:-1]), path[-1]
    value = parent[key]
    roll = rng.random()
    if roll < 0.25 and isinstance(parent, dict):
        del parent[key]
        return f"del {path}"
    if roll < 0.35 and isinstance(parent, dict):
        new = rng.choice(UNKNOWN_KEYS)
        parent[new] = copy.deepcopy(rng.choice(ODD_VALUES))  # (shared, it could come to hold itself)
        return f"add {path[:-1] + (new,)}={parent[new]!r}"[:120]
    if roll < 0.45 and isinstance(value, list):
        if value and rng.random() < 0.5:
            value.append(copy.deepcopy(rng.choice(value)))
            return f"grow {path}"
        value.clear()
        return f"empty {path}"
    if roll < 0.55 and isinstance(value, int) and not isinstance(value, bool):
        parent[key] = rng.choice([-1, 0, value + 1, value * 1000 + 7, 10**9, -(10**9)])
        return f"int {path}={parent[key]}"
    parent[key] = copy.deepcopy(rng.choice(ODD_VALUES))
    return f"set {path}={parent[key]!r}"[:120]


def _tokenize_case(rng: random.Random, model: str, tokenize: Any) -> tuple[str, dict[str, Any]]:
    if rng.random() < 0.5:
        body: dict[str, Any] = {"model": model}
        if rng.random() < 0.5:
            body["prompt"] = rng.choice(["Hello there", "東京 🍂", ""])
        else:
            body["messages"] = [{"role": "user", "content": "Hello there"}]
            if rng.random() < 0.3:
                body["add_generation_prompt"] = rng.choice([True, False])
        for key, val in (("return_token_strs", True), ("add_special_tokens", False)):
            if rng.random() < 0.3:
                body[key] = val
        return "/tokenize", body
    return "/detokenize", {"model": model, "tokens": tokenize("Hello there, 東京")}


def stops_vllm(req: Any, cfg: dict[str, Any] | None = None) -> bool:
    """Whether vLLM 0.33.0 would 500 on this body in a way that shuts its server down (a tool
    without a `function` object or name; a `structured_outputs` that is no object, on
    /tokenize; a derender whose tool `properties` is no object; a GLM tool property schema
    that is a list or a string, on glm45 / glm47: the listed 5xx rows), so a sweep skips it."""
    if isinstance(req, dict) and not isinstance(req.get("structured_outputs", {}), (dict, type(None))):
        return True
    chat = (req.get("chat_request") or (req.get("base") or {}).get("chat_request") or req) if isinstance(req, dict) else None
    tools = chat.get("tools") if isinstance(chat, dict) else None
    if not isinstance(tools, list):
        return False
    derender = chat is not req
    for t in tools:
        if isinstance(t, dict) and (not isinstance(t.get("function"), dict) or "name" not in t["function"]):
            return True
        params = t["function"].get("parameters") if isinstance(t, dict) else None
        if derender and isinstance(params, dict) and not isinstance(params.get("properties", {}), dict):
            return True
        args = (cfg or {}).get("args", [])
        glm = "--tool-call-parser" in args and args[args.index("--tool-call-parser") + 1] in ("glm45", "glm47")
        props = params.get("properties") if isinstance(params, dict) else None
        if glm and isinstance(props, dict) and any(isinstance(v, (list, str)) for v in props.values()):
            return True
    return False


def make_error_case(rng: random.Random, name: str, cfg: dict[str, Any], tokenize: Any, eos: int,
                    texts: list[str], i: int, vllm_state: Any) -> dict[str, Any]:
    model = cfg["served_model_name"]
    roll = rng.random()
    if roll < 0.05:
        endpoint = rng.choice(["/v1/chat/completions/derender", "/v1/completions/render", "/tokenize",
                               "/detokenize", "/v1/completions/derender"])
        return {"id": f"err-{name}-{i}", "family": "errors", "config": name, "endpoint": endpoint,
                "method": "POST", "request": None, "raw_body": rng.choice(RAW_BODIES),
                "scenario": "bad_json"}
    if roll < 0.55:
        case = make_case(rng, name, cfg, tokenize, eos, texts, i)
    elif roll < 0.8:
        chat = rng.random() < 0.6
        body = chat_request(rng, model) if chat else completion_request(rng, model)
        endpoint = "/v1/chat/completions/render" if chat else "/v1/completions/render"
        case = {"endpoint": endpoint, "request": body}
    else:
        endpoint, body = _tokenize_case(rng, model, tokenize)
        case = {"endpoint": endpoint, "request": body}
    req = case["request"] = copy.deepcopy(case["request"])  # the builders share module data
    if req.get("kind") == "stream" and rng.random() < 0.3:
        state = vllm_state(case)
        if state is not None:
            req["initial_state"] = state
    target = req
    if req.get("kind") == "stream":
        target = rng.choice([t for t in (req["base"], req["chunks"], req.get("initial_state")) if t])
    done = [mutate(rng, target) for _ in range(rng.choice([1, 1, 1, 2, 3]))]
    return {"id": f"err-{name}-{i}", "family": "errors", "config": name, "endpoint": case["endpoint"],
            "method": "POST", "request": req, "scenario": "mutation: " + "; ".join(done)}


def run(name: str, cfg: dict[str, Any], vllm: str, tf: str, n: int, seed: int,
        record: Path | None, record_all: bool = False) -> int:
    rng = random.Random(f"errors-{seed}-{name}")
    eos = eos_id(cfg)
    with httpx.Client(timeout=120) as client:
        tokenize = vllm_tokenizer(client, vllm, cfg)

        def vllm_state(case: dict[str, Any]) -> Any:
            """vLLM's stream_state after the first chunk of `case` (then the chunk is dropped)."""
            req = case["request"]
            body = dict(req["base"], stream=True, generate_chunk=req["chunks"][0], stream_state=None)
            r = client.post(vllm + case["endpoint"], json=body)
            if r.status_code != 200 or len(req["chunks"]) < 2:
                return None
            req["chunks"] = req["chunks"][1:]
            return r.json().get("stream_state")

        def show(case: dict[str, Any], golden: dict[str, Any], got: dict[str, Any]) -> None:
            print("    vllm:", _message(golden)[:240])
            print("    tf:  ", _message(got)[:240])

        texts = texts_for(cfg)
        cases = (
            case for i in range(n)
            if not stops_vllm((case := make_error_case(rng, name, cfg, tokenize, eos, texts, i, vllm_state))["request"], cfg)
        )
        return compare_cases(
            name, cases, client, vllm, tf, record, record_all=record_all, show=show,
            flag=lambda got: "tokenfront answered 5xx" if any(s >= 500 for s in _statuses(got)) else None,
        )


def _statuses(result: dict[str, Any]) -> list[int]:
    s = result["status"]
    return s if isinstance(s, list) else [s]


def _message(result: dict[str, Any]) -> str:
    resp = result["response"]
    last = resp[-1] if isinstance(resp, list) and resp else resp
    if isinstance(last, dict) and isinstance(last.get("error"), dict):
        return f"{_statuses(result)} {last['error'].get('message')}"
    return f"{_statuses(result)} {json.dumps(last, ensure_ascii=False)[:200]}"


def main() -> int:
    return sweep_main(__doc__, run, n=200, port=8631, logs="/tmp/errors-logs")


if __name__ == "__main__":
    raise SystemExit(main())
