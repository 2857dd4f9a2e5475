#!/usr/bin/env python3
"""Record gpt-oss chat render golden cases (family render-chat) from a real vLLM 0.33.0.

For every config of tests/golden/configs-gptossrender.json (`"cases": ["render", NAME]`) starts
`vllm launch render` and stores its answers to `golden_cases_gptoss.RENDER_CASES[NAME]` (chat
render, or `/tokenize` for cases with `"_endpoint": "/tokenize"`) in
tests/golden/vllm-gptossrender.jsonl. vLLM renders gpt-oss chats with Harmony and dates the
system message: each server gets its config's `env` (VLLM_SYSTEM_START_DATE, and
VLLM_ENFORCE_STRICT_TOOL_CALLING for the lax config); run it with TIKTOKEN_ENCODINGS_BASE pointing
at the built model dir (its o200k_base.tiktoken).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import golden_cases_gptoss  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models-root", default=str(ROOT.parent / "shared"))
    ap.add_argument("--configs", default=str(ROOT / "tests/golden/configs-gptossrender.json"))
    ap.add_argument("--out", default=str(ROOT / "tests/golden/vllm-gptossrender.jsonl"))
    ap.add_argument("--vllm-cmd", required=True)
    ap.add_argument("--port", type=int, default=8790)
    ap.add_argument("--logs", default="/tmp/vllm-golden-logs")
    args = ap.parse_args()
    sys.path.insert(0, str(Path(args.models_root) / "parity"))
    import paritylib as lib  # type: ignore[import-not-found]

    configs = {k: v for k, v in json.loads(Path(args.configs).read_text()).items() if not k.startswith("_")}
    records = []
    logs = Path(args.logs)
    logs.mkdir(parents=True, exist_ok=True)
    for name, config in configs.items():
        model_dir = ROOT / config["model"].removeprefix("repo:")
        cmd = lib.format_command(
            args.vllm_cmd, model=str(model_dir), port=args.port, name=config["served_model_name"],
            args=list(config.get("args", [])), config=name,
        )  # fmt: skip
        server = lib.Server(cmd, args.port, logs / f"vllm-{name}.log", env=config.get("env"))
        if not server.wait_healthy(900):
            server.stop()
            print(f"[{name}] vLLM did not start", flush=True)
            continue
        try:
            with httpx.Client(timeout=120) as client:
                for scenario, case in golden_cases_gptoss.RENDER_CASES[config["cases"][1]].items():
                    body = {k: v for k, v in case.items() if k != "_endpoint"}
                    endpoint = case.get("_endpoint", "/v1/chat/completions/render")
                    record = {
                        "id": f"tf-{name}-{scenario}",
                        "family": "tokenize" if endpoint == "/tokenize" else "render-chat",
                        "config": name,
                        "endpoint": endpoint,
                        "method": "POST",
                        "request": {"model": config["served_model_name"], **body},
                        "scenario": scenario,
                    }
                    result = lib.run_case(client, server.url, record)
                    record["status"] = result["status"]
                    record["response"] = result["response"]
                    records.append(record)
        finally:
            server.stop()
        print(f"[{name}] recorded", flush=True)
    records.sort(key=lambda r: (r["config"], r["id"]))
    Path(args.out).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
