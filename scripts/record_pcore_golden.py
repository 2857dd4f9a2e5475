#!/usr/bin/env python3
"""Record parser-core golden cases (tool_choice, reasoning, streaming chunkings) from vLLM 0.33.0.

Each case is a model output text x a request variant (tool_choice none/auto/required/named,
parallel_tool_calls=false, include_reasoning=false, thinking off, no tools), sent to a real
vLLM render server as one-shot derender and as streams of 1- and 3-token chunks. Records go
to tests/golden/vllm-pcore.jsonl in the shared corpus format (configs from the shared
configs.json), so `../shared/parity/replay.py --golden tests/golden/vllm-pcore.jsonl` replays it.

    python scripts/record_pcore_golden.py --vllm-cmd 'VLLM_TARGET_DEVICE=cpu \
        /work/vllm-venv/bin/vllm launch render --model {model} --served-model-name {name} \
        --host 127.0.0.1 --port {port} {args}' --only qwen3-hermes

With `--native` the texts are written in each config's own tool-call format
(scripts/golden_cases.py) and every variant is recorded for each; only the variants whose
answer differs are kept. tests/golden/vllm-tchoice.jsonl was recorded that way:

    python scripts/record_pcore_golden.py --native --configs tests/golden/configs-tchoice.json \
        --id-prefix tc --out tests/golden/vllm-tchoice.jsonl --vllm-cmd '...' --only qwen3-hermes ...
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"],
        },
    },
}
SEARCH = {
    "type": "function",
    "function": {
        "name": "search",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
    },
}
TOOLS = [WEATHER, SEARCH]

CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "東京", "days": 2}}\n</tool_call>'
CALL2 = '<tool_call>\n{"name": "search", "arguments": {"query": "ramen \\"best\\""}}\n</tool_call>'
REQUIRED = '[{"name": "get_weather", "parameters": {"city": "Paris"}}, {"name": "search", "parameters": {"query": "x"}}]'

TEXTS: dict[str, str] = {
    "plain": "<think>\nLet me think: 2 < 3.\n</think>\n\nThe answer is <b>42</b>.",
    "tool": "<think>\nNeed the weather.\n</think>\n\n" + CALL,
    "two_tools": "<think>\nTwo calls.\n</think>\n\nSure, checking." + CALL + "\n" + CALL2,
    "tool_in_reasoning": "<think>\nI will call " + CALL + " now",
    "no_think": "Hello there " + CALL,
    "cut_tool": "<think>\nok\n</think>\n\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Pa",
    "bad_json": "<think>\nok\n</think>\n\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": }\n</tool_call>",
    "required": REQUIRED,
    "named": '{"city": "Paris", "days": 1}',
    "ws_content": "<think>\nhm\n</think>\n\n   \n",
    "partial_marker": "<think>\nx\n</think>\n\nAnswer ends with <tool",
    "think_only": "<think>\nStill thinking and never done",
    "specials": "<think>\nr\n</think>\n\nA<|im_end|>B<|endoftext|>C",
}

NAMED = {"type": "function", "function": {"name": "get_weather"}}
VARIANTS: dict[str, dict[str, Any]] = {
    "auto": {"tools": TOOLS},
    "none": {"tools": TOOLS, "tool_choice": "none"},
    "required": {"tools": TOOLS, "tool_choice": "required"},
    "named": {"tools": TOOLS, "tool_choice": NAMED},
    "serial": {"tools": TOOLS, "parallel_tool_calls": False},
    "hide": {"tools": TOOLS, "include_reasoning": False},
    "nothink": {"tools": TOOLS, "chat_template_kwargs": {"enable_thinking": False}},
    "notools": {},
}
# Which (text, variant) pairs to record: every text with auto; the tool-ish ones with the rest.
PAIRS = [(t, "auto") for t in TEXTS] + [
    (t, v)
    for t in ("tool", "two_tools", "required", "named", "plain", "cut_tool", "tool_in_reasoning")
    for v in ("none", "required", "named", "serial", "hide", "nothink", "notools")
]
CHUNKINGS = (1, 3)


def _paritylib(models_root: Path) -> Any:
    sys.path.insert(0, str(models_root / "parity"))
    import paritylib  # type: ignore[import-not-found]

    return paritylib


def _flag(args: list[str], flag: str) -> str | None:
    return args[args.index(flag) + 1] if flag in args else None


def native_cases(cfg: dict[str, Any]) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """Texts in the config's own tool-call format (scripts/golden_cases.py), every variant each."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import golden_cases as gc

    args = list(cfg.get("args", []))
    fmt = gc.FORMATS[_flag(args, "--tool-call-parser") or "hermes"]
    assert fmt.calls is not None
    write = fmt.calls
    one = write(gc.ONE)
    texts = {
        "plain": "Paris is sunny today, 21 degrees.",
        "call": one,
        "calls": write(gc.PARALLEL),
        "text_call": "Let me check that.\n" + one,
        "nested": write(gc.NESTED),
        "unknown": write([("launch_rocket", {"target": "moon"})]),
        "cut": one[: max(8, len(one) * 2 // 3)],
        "required_json": json.dumps([{"name": n, "parameters": a} for n, a in gc.PARALLEL],
                                    ensure_ascii=False),
        "named_json": json.dumps(gc.ONE[0][1]),
    }
    think = gc.REASONING_FORMATS.get(_flag(args, "--reasoning-parser") or "")
    if think:
        texts["think_call"] = f"{think[0]}Need the weather.{think[1]}" + one
        texts["think_plain"] = f"{think[0]}Easy one.{think[1]}It is sunny."
    return texts, [(t, v) for t in texts for v in VARIANTS]


def record(lib: Any, name: str, cfg: dict[str, Any], models_root: Path, template: str,
           port: int, logs: Path, prefix: str = "pcore", native: bool = False) -> list[dict[str, Any]]:
    model_dir = models_root / cfg["model"]
    cmd = lib.format_command(template, model=str(model_dir), port=port,
                             name=cfg["served_model_name"], args=list(cfg.get("args", [])),
                             config=name)
    server = lib.Server(cmd, port, logs / f"vllm-pcore-{name}.log")
    out: list[dict[str, Any]] = []
    if not server.wait_healthy(600):
        server.stop()
        print(f"[{name}] vLLM did not start", flush=True)
        return out
    eos = json.loads((model_dir / "generation_config.json").read_text()).get("eos_token_id")
    eos = eos[0] if isinstance(eos, list) else eos
    served = cfg["served_model_name"]
    texts, pairs, tools = TEXTS, PAIRS, TOOLS
    if native:
        sys.path.insert(0, str(ROOT / "scripts"))
        import golden_cases as gc

        texts, pairs = native_cases(cfg)
        tools = gc.TOOLS
    try:
        with httpx.Client(timeout=120) as client:
            for text_name, variant in pairs:
                text = texts[text_name]
                chat: dict[str, Any] = {
                    "model": served,
                    "messages": [{"role": "user", "content": "Weather in Paris?"}],
                    **json.loads(json.dumps(VARIANTS[variant])),
                }
                if "tools" in chat:
                    chat["tools"] = json.loads(json.dumps(tools))
                rendered = client.post(f"{server.url}/v1/chat/completions/render", json=chat)
                if text_name == "plain":  # the render of each variant, once
                    out.append({"id": f"{prefix}-{name}-render-{variant}", "family": "render-chat",
                                "config": name, "endpoint": "/v1/chat/completions/render",
                                "method": "POST", "request": chat, "scenario": f"render-{variant}",
                                "status": rendered.status_code, "response": rendered.json()})
                if rendered.status_code != 200:
                    continue
                prompt_ids = rendered.json()["token_ids"]
                tok = client.post(f"{server.url}/tokenize",
                                  json={"model": served, "prompt": text, "add_special_tokens": False})
                ids = list(tok.json()["tokens"]) + [eos]
                base = {"model": served, "chat_request": chat, "prompt_tokens": len(prompt_ids),
                        "prompt_token_ids": prompt_ids}
                scenario = f"{text_name}-{variant}"
                once = dict(base)
                once["generate_response"] = {
                    "request_id": f"gen-{scenario}",
                    "choices": [{"index": 0, "token_ids": ids, "finish_reason": "stop"}],
                }
                requests = [("derender-chat", "once", once)]
                for per in CHUNKINGS:
                    chunks = []
                    for i in range(0, len(ids), per):
                        choice: dict[str, Any] = {"index": 0, "token_ids": ids[i : i + per]}
                        if i + per >= len(ids):
                            choice["finish_reason"] = "stop"
                        chunks.append({"request_id": "gen-stream", "choices": [choice]})
                    requests.append(("stream", f"s{per}",
                                     {"kind": "stream", "base": base, "chunks": chunks}))
                for family, tag, request in requests:
                    rec = {"id": f"{prefix}-{name}-{scenario}-{tag}", "family": family, "config": name,
                           "endpoint": "/v1/chat/completions/derender", "method": "POST",
                           "request": request, "scenario": scenario}
                    result = lib.run_case(client, server.url, rec)
                    rec["status"] = result["status"]
                    rec["response"] = result["response"]
                    out.append(rec)
    finally:
        server.stop()
    print(f"[{name}] recorded {len(out)} cases", flush=True)
    return out


ONE_TOKEN_TEXTS = ("-call",)  # the call text alone (`-text_call` ends in "_call")
# ids, timestamps and the prompt's length (each variant renders its own prompt)
_VOLATILE = re.compile(r'"(?:id|created|prompt_tokens|total_tokens)": (?:"[^"]*"|\d+)')


def distinct_variants(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per text and request kind (once / s1 / s3), only the variants whose answer differs
    from every earlier variant's, and one-token streams of ONE_TOKEN_TEXTS only (the corpus
    stays small enough for CI)."""
    seen: dict[tuple[str, str, str], set[str]] = {}
    out = []
    for rec in records:
        found = re.fullmatch(r"(.+)-(\w+)-(once|s1|s3)", rec["id"])
        if found is None or rec["family"] == "render-chat":
            out.append(rec)
            continue
        text_key = (found[1], found[3])  # (prefix-config-text, kind)
        if found[3] == "s1" and not found[1].endswith(ONE_TOKEN_TEXTS):
            continue  # one token per chunk costs a request per token: a few texts only
        answer = _VOLATILE.sub("", json.dumps(rec["response"], sort_keys=True, ensure_ascii=False))
        if answer not in seen.setdefault(text_key, set()):
            seen[text_key].add(answer)
            out.append(rec)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models-root", default=str(ROOT.parent / "shared"))
    ap.add_argument("--out", default=str(ROOT / "tests/golden/vllm-pcore.jsonl"))
    ap.add_argument("--vllm-cmd", required=True)
    ap.add_argument("--only", nargs="+", required=True)
    ap.add_argument("--port", type=int, default=8555)
    ap.add_argument("--logs", default="/tmp/vllm-pcore-logs")
    ap.add_argument("--configs", help="configs file (default: the shared parity configs)")
    ap.add_argument("--id-prefix", default="pcore")
    ap.add_argument("--native", action="store_true",
                    help="texts in each config's own tool-call format, every variant each")
    args = ap.parse_args()
    models_root = Path(args.models_root)
    lib = _paritylib(models_root)
    configs = lib.load_configs(Path(args.configs) if args.configs else models_root / "parity" / "configs.json")
    out = Path(args.out)
    kept = [r for r in lib.read_jsonl(out) if r["config"] not in args.only] if out.exists() else []
    logs = Path(args.logs)
    logs.mkdir(parents=True, exist_ok=True)
    records = list(kept)
    for name in args.only:
        records += record(lib, name, configs[name], models_root, args.vllm_cmd, args.port, logs,
                          args.id_prefix, args.native)
    if args.native:
        records = distinct_variants(records)
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    print(f"wrote {len(records)} records to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
