#!/usr/bin/env python3
"""Random render requests sent to a vLLM 0.33.0 render server and to tokenfront, answers compared.

Chat and completion render requests are drawn (seeded) from the shapes of the shared corpus:
multi-turn and tool histories, reasoning fields, text parts, generation-prompt flags, tools with
every tool_choice, thinking switches, structured outputs and bundles of sampling fields, with
a few invalid values. Both servers must serve the same model with the same flags. Answers are
compared with the shared harness's rules (`paritylib.compare_single`: errors by status, type
and code). With `--record FILE --config NAME` the differing (or all, `--record-all`) requests
are appended with vLLM's answers in the shared corpus format.

    python scripts/render_diff.py VLLM_URL TF_URL MODEL_NAME [--seed S] [-n N]
    python scripts/render_diff.py --configs ../shared/parity/configs.json --all \\
        --vllm-cmd '...' --tf-cmd '...' -n 120          # start both servers per config
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"

PHRASES = [
    "What's the weather like in Paris today?", "Hi", "Summarize Hamlet in two sentences.",
    "東京の天気は？", "Café ☕ and naïve 😀", "Use <tool_call> literally.", "a\nb\n\nc",
    "  padded  ", "{\"json\": [1, 2]}", "<think>not really</think>", "[INST] odd [/INST]",
    "<|im_end|> in text", "", "x" * 300, "Line with trailing space ",
]
TOOLS = [
    {"type": "function", "function": {
        "name": "get_weather", "description": "Get the weather",
        "parameters": {"type": "object", "properties": {
            "city": {"type": "string", "description": "City"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
            "required": ["city"]}}},
    {"type": "function", "function": {
        "name": "search", "parameters": {"type": "object", "properties": {
            "query": {"type": "string"}, "limit": {"type": "integer", "minimum": 1},
            "filters": {"type": "object", "properties": {"lang": {"type": "array",
                                                                  "items": {"type": "string"}}}}}}}},
    {"type": "function", "function": {"name": "get_time", "description": "Current time",
                                      "parameters": {"type": "object", "properties": {}}}},
    {"type": "function", "function": {"name": "no_params"}},
    {"type": "function", "function": {
        "name": "book", "strict": True, "parameters": {
            "type": "object", "properties": {"when": {"type": "string", "format": "date"},
                                             "seats": {"type": ["integer", "null"]}},
            "required": ["when", "seats"], "additionalProperties": False}}},
]


def _text(rng: random.Random) -> str:
    return rng.choice(PHRASES)


def _content(rng: random.Random) -> Any:
    if rng.random() < 0.2:
        return [{"type": "text", "text": _text(rng)} for _ in range(rng.randint(1, 3))]
    return _text(rng)


def _call(rng: random.Random, i: int) -> dict[str, Any]:
    tool = rng.choice(TOOLS[:3])["function"]["name"]
    args = rng.choice(['{"city": "Paris"}', "{}", '{"query": "ramen", "limit": 3}', '{"a": [1, {"b": null}]}'])
    return {"id": f"call_{i}_{rng.randint(0, 999)}", "type": "function",
            "function": {"name": tool, "arguments": args}}


def messages(rng: random.Random) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if rng.random() < 0.4:
        out.append({"role": "system", "content": _content(rng)})
    for turn in range(rng.choice([1, 1, 2, 3])):
        out.append({"role": "user", "content": _content(rng)})
        if rng.random() < 0.15:
            out[-1]["name"] = "alice"
        if turn == 0 and len(out) and rng.random() < 0.5:
            continue
        shape = rng.random()
        if shape < 0.3:  # a tool exchange
            calls = [_call(rng, i) for i in range(rng.choice([1, 1, 2]))]
            msg: dict[str, Any] = {"role": "assistant", "content": rng.choice([None, "", "Let me check."]),
                                   "tool_calls": calls}
            out.append(msg)
            for call in calls:
                out.append({"role": "tool", "tool_call_id": call["id"], "content": _content(rng)})
            out.append({"role": "assistant", "content": _text(rng)})
        elif shape < 0.5:  # reasoning history
            key = rng.choice(["reasoning", "reasoning_content"])
            out.append({"role": "assistant", "content": _text(rng), key: _text(rng)})
        else:
            out.append({"role": "assistant", "content": _content(rng)})
    if out[-1]["role"] != "user" and rng.random() < 0.7:
        out.append({"role": "user", "content": _text(rng)})
    return out


SAMPLING: dict[str, Any] = {
    "temperature": [0, 0.7, 1.5, 2.0], "top_p": [0.1, 0.9, 1.0], "top_k": [-1, 0, 1, 40],
    "min_p": [0.0, 0.05], "max_tokens": [1, 16, 100000, None], "max_completion_tokens": [5, 64],
    "seed": [0, 42, -1], "stop": ["###", ["\n\n", "END"], []], "stop_token_ids": [[1, 2], []],
    "n": [1, 2, 4], "presence_penalty": [0.5, -2.0], "frequency_penalty": [1.0],
    "repetition_penalty": [1.1, 1.0], "logprobs": [True, False], "top_logprobs": [0, 2, 5],
    "logit_bias": [{"5": 1.0}, {"100": -100}], "min_tokens": [0, 3], "ignore_eos": [True],
    "skip_special_tokens": [False, True], "spaces_between_special_tokens": [False],
    "include_stop_str_in_output": [True], "bad_words": [["zz"]], "allowed_token_ids": [[5, 6, 7]],
    "prompt_logprobs": [0, 1], "truncate_prompt_tokens": [4, -1], "priority": [0, 1],
    "request_id": ["req-fixed"], "cache_salt": ["salt"], "return_token_ids": [True],
    "user": ["u"], "kv_transfer_params": [{"do_remote_decode": True}], "echo": [True, False],
    "vllm_xargs": [{"foo": "bar"}], "stream": [True], "stream_options": [{"include_usage": True}],
    "length_penalty": [1.0], "repetition_detection": [None],
}
BAD: dict[str, Any] = {
    "temperature": -1, "top_p": 2, "n": 0, "top_logprobs": 30, "max_tokens": -1, "logprobs": 5,
    "stop": 7, "min_tokens": -1, "logit_bias": {"x": 1}, "seed": "s", "messages": [],
    "truncate_prompt_tokens": -5, "prompt_logprobs": -2, "top_k": -7,
}
FORMATS = [
    {"response_format": {"type": "json_object"}},
    {"response_format": {"type": "text"}},
    {"response_format": {"type": "json_schema", "json_schema": {
        "name": "x", "schema": {"type": "object", "properties": {"a": {"type": "integer"}}}}}},
    {"structured_outputs": {"regex": "[a-z]+"}},
    {"structured_outputs": {"choice": ["yes", "no"]}},
    {"structured_outputs": {"json": {"type": "array"}}},
]


def _sampling(rng: random.Random, body: dict[str, Any], chat: bool) -> None:
    for key in rng.sample(sorted(SAMPLING), rng.choice([0, 0, 1, 2, 4, 8])):
        if key == "echo" and not chat:
            continue
        body[key] = rng.choice(SAMPLING[key])
    if rng.random() < 0.1:
        body.update(rng.choice(FORMATS))
    if rng.random() < 0.06:
        key = rng.choice(sorted(BAD))
        if chat or key != "messages":
            body[key] = BAD[key]


def chat_request(rng: random.Random, model: str) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "messages": messages(rng)}
    if rng.random() < 0.4:
        body["tools"] = rng.sample(TOOLS, rng.randint(1, len(TOOLS)))
        choice = rng.random()
        names = [t["function"]["name"] for t in body["tools"]]
        if choice < 0.2:
            body["tool_choice"] = "none"
        elif choice < 0.4:
            body["tool_choice"] = "required"
        elif choice < 0.55:
            body["tool_choice"] = {"type": "function", "function": {"name": rng.choice(names)}}
        elif choice < 0.65:
            body["tool_choice"] = "auto"
        if rng.random() < 0.2:
            body["parallel_tool_calls"] = rng.choice([True, False])
    if rng.random() < 0.3:
        kwargs: dict[str, Any] = {"enable_thinking": rng.choice([True, False])}
        if rng.random() < 0.3:
            kwargs["thinking"] = rng.choice([True, False])
        body["chat_template_kwargs"] = kwargs
    if rng.random() < 0.1:
        body["reasoning_effort"] = rng.choice(["low", "medium", "high"])
    if rng.random() < 0.1:
        body["include_reasoning"] = False
    last = body["messages"][-1]["role"]
    if rng.random() < 0.15:
        body["add_generation_prompt"] = False
        if last == "assistant" and rng.random() < 0.7:
            body["continue_final_message"] = True
    _sampling(rng, body, chat=True)
    return body


def completion_request(rng: random.Random, model: str) -> dict[str, Any]:
    kind = rng.random()
    prompt: Any
    if kind < 0.5:
        prompt = _text(rng) or "x"
    elif kind < 0.7:
        prompt = [(_text(rng) or "y") for _ in range(rng.randint(1, 3))]
    elif kind < 0.85:
        prompt = [rng.randint(0, 5000) for _ in range(rng.randint(1, 12))]
    else:
        prompt = [[rng.randint(0, 5000) for _ in range(rng.randint(1, 6))] for _ in range(2)]
    body: dict[str, Any] = {"model": model, "prompt": prompt}
    if rng.random() < 0.3:
        body["add_special_tokens"] = rng.choice([True, False])
    if rng.random() < 0.2:
        body["echo"] = True
    _sampling(rng, body, chat=False)
    return body


def _post(client: httpx.Client, url: str, endpoint: str, body: dict[str, Any]) -> tuple[int, Any]:
    try:
        r = client.post(url + endpoint, json=body)
    except httpx.TransportError:  # vLLM closes the connection after an unhandled exception (a 500)
        r = client.post(url + endpoint, json=body)
    try:
        return r.status_code, r.json()
    except ValueError:
        return r.status_code, r.text


def compare(vllm: str, tf: str, model: str, seed: int, n: int, config: str = "",
            record: Path | None = None, record_all: bool = False) -> int:
    def draw(rng: random.Random) -> tuple[str, dict[str, Any], str]:
        if rng.random() < 0.75:
            return "/v1/chat/completions/render", chat_request(rng, model), "render-chat"
        return "/v1/completions/render", completion_request(rng, model), "render-completion"

    return compare_drawn(vllm, tf, draw, seed, n, config, record, record_all, "rfz", "render_fuzz")


def compare_drawn(
    vllm: str, tf: str, draw: Callable[[random.Random], tuple[str, dict[str, Any], str]],
    seed: int, n: int, config: str, record: Path | None, record_all: bool,
    id_prefix: str, scenario: str,
) -> int:
    """Post `n` requests from `draw(rng)` (endpoint, body, family) to both servers and compare
    the answers with the shared harness's rules; with `record`, append the differing (or all)
    cases with vLLM's answers (family "errors" when vLLM refused). Answers the differing count."""
    sys.path.insert(0, str(SHARED / "parity"))
    import paritylib  # type: ignore[import-not-found]

    rng = random.Random(seed)
    bad = 0
    out = []
    with httpx.Client(timeout=120) as client:
        for i in range(n):
            endpoint, body, family = draw(rng)
            try:
                gs, gr = _post(client, vllm, endpoint, body)
                cs, cr = _post(client, tf, endpoint, body)
            except httpx.HTTPError as exc:
                print(f"[{config}] #{i} stopped: {exc!r}")
                return bad + 1
            diffs = paritylib.compare_single(endpoint, gs, gr, cs, cr)
            if diffs:
                bad += 1
                print(f"[{config}] #{i} {endpoint} vllm={gs} tf={cs}")
                print("   req:", json.dumps(body, ensure_ascii=False)[:600])
                for d in diffs[:4]:
                    print("   ", d[:300])
                for who, status, answer in (("vllm", gs, gr), ("tf", cs, cr)):
                    if status != 200 and isinstance(answer, dict):
                        print(f"    {who} error:", str(answer.get("error", {}).get("message"))[:300])
            if record and (diffs or record_all):
                out.append({"id": f"{id_prefix}-{config}-{seed}-{i}", "family": family if gs == 200 else "errors",
                            "config": config, "endpoint": endpoint, "method": "POST", "request": body,
                            "scenario": scenario, "status": gs, "response": gr})
    if record and out:
        with record.open("a", encoding="utf-8") as fh:
            fh.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in out)
    print(f"[{config}] {n - bad}/{n} same")
    return bad


def main() -> int:
    return url_or_sweep_main(__doc__, compare, n=100, port=8571, logs="/tmp/render-diff-logs")


def one_endpoint_compare(
    endpoint: str, make_body: Callable[[random.Random, str], dict[str, Any]], family: str,
    id_prefix: str, scenario: str,
) -> Callable[..., int]:
    """A `compare` (see `url_or_sweep_main`) posting `make_body(rng, model)` bodies to one
    endpoint (the Messages and Responses sweeps)."""
    def compare(vllm: str, tf: str, model: str, seed: int, n: int, config: str = "",
                record: Path | None = None, record_all: bool = False) -> int:
        def draw(rng: random.Random) -> tuple[str, dict[str, Any], str]:
            return endpoint, make_body(rng, model), family

        return compare_drawn(vllm, tf, draw, seed, n, config, record, record_all, id_prefix, scenario)

    return compare


def url_or_sweep_main(doc: str, compare: Callable[..., int], *, n: int, port: int, logs: str) -> int:
    """A `main` comparing two running servers (`VLLM_URL TF_URL MODEL_NAME`) or, without them,
    sweeping the configs; `compare(vllm, tf, model, seed, n, config, record, record_all)`
    answers the number of differing requests."""
    ap = sweep_arguments(doc, n=n, port=port, logs=logs, commands=False)
    ap.add_argument("urls", nargs="*", help="VLLM_URL TF_URL MODEL_NAME (servers already running)")
    args = ap.parse_args()
    if args.urls:
        vllm, tf, model = args.urls
        return 1 if compare(vllm, tf, model, args.seed, args.n, "", args.record, args.record_all) else 0
    return run_sweep(args, lambda name, cfg, vllm, tf, n, seed, record, record_all: compare(
        vllm, tf, cfg["served_model_name"], seed, n, name, record, record_all))


def sweep_arguments(
    doc: str, *, n: int, port: int, logs: str, commands: bool = True
) -> argparse.ArgumentParser:
    """The command line of a side-by-side sweep over the configs (`side_by_side`);
    `commands`: the two server commands are required."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--configs", default=str(SHARED / "parity" / "configs.json"))
    ap.add_argument("--only", nargs="*", help="config names (default: every config)")
    ap.add_argument("-n", type=int, default=n, help="requests per config")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--vllm-cmd", required=commands)
    ap.add_argument("--tf-cmd", required=commands)
    ap.add_argument("--port", type=int, default=port, help="vLLM's port; tokenfront's is the next")
    ap.add_argument("--logs", default=logs)
    ap.add_argument("--record", type=Path, help="append the differing cases (vLLM's answers)")
    ap.add_argument("--record-all", action="store_true", help="with --record: the equal ones too")
    return ap


def sweep_main(doc: str, run: Callable[..., int], *, n: int, port: int, logs: str) -> int:
    """A sweep script's `main` (see `run_sweep`)."""
    return run_sweep(sweep_arguments(doc, n=n, port=port, logs=logs).parse_args(), run)


def run_sweep(args: argparse.Namespace, run: Callable[..., int]) -> int:
    """`run(name, cfg, vllm_url, tf_url, n, seed, record, record_all)` per config, both
    servers started by `side_by_side`; prints the total of differing answers."""
    total = side_by_side(
        Path(args.configs), args.only, args.vllm_cmd, args.tf_cmd, args.port, Path(args.logs),
        lambda name, cfg, vllm, tf: run(name, cfg, vllm, tf, args.n, args.seed, args.record,
                                        args.record_all),
    )
    print("differing:", total)
    return 0


def model_dir(model: str) -> Path:
    """A config's model folder: relative to ../shared, or `repo:tests/models/X` in this repository."""
    return ROOT / model.removeprefix("repo:") if model.startswith("repo:") else SHARED / model


def side_by_side(
    configs_file: Path, only: list[str] | None, vllm_cmd: str, tf_cmd: str, port: int, logs: Path,
    run: Callable[[str, dict[str, Any], str, str], int],
) -> int:
    """For each config: start vLLM (`port`) and tokenfront (`port + 1`) with its flags, call
    `run(name, cfg, vllm_url, tf_url)` (the number of differing answers), stop both."""
    sys.path.insert(0, str(SHARED / "parity"))
    import paritylib

    configs = paritylib.load_configs(configs_file)
    logs.mkdir(parents=True, exist_ok=True)
    total = 0
    for name in only or list(configs):
        cfg = configs[name]
        servers = []
        for i, template in enumerate((vllm_cmd, tf_cmd)):
            cmd = paritylib.format_command(template, model=str(model_dir(cfg["model"])),
                                           port=port + i, name=cfg["served_model_name"],
                                           args=list(cfg.get("args", [])), config=name)
            servers.append(paritylib.Server(cmd, port + i, logs / f"{name}-{i}.log", cfg.get("env")))
        try:
            if all(s.wait_healthy(600) for s in servers):
                total += run(name, cfg, servers[0].url, servers[1].url)
            else:
                print(f"[{name}] a server did not start")
        finally:
            for s in servers:
                s.stop()
    return total


if __name__ == "__main__":
    raise SystemExit(main())
