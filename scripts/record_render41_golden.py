#!/usr/bin/env python3
"""Record chat render golden cases from a real vLLM 0.33.0 (render41 corpus by default).

For each config whose `cases` are ["render", NAME], starts `vllm launch render` and stores the
answers to the chat render requests of `<cases-module>.RENDER_CASES[NAME]` in the shared corpus
format (family render-chat, or render-completion / tokenize / render-messages for cases marked
`"_endpoint": "completions"` / `"tokenize"` / `"messages"`, GET /tokenizer_info and
/v1/models for `"tokenizer_info"` / `"models"`;
ids `<config>-<scenario>`), merged into `--out` (records of configs
not recorded in this run are kept).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))


# A case's `_endpoint` marker -> (corpus family, endpoint).
_ENDPOINTS = {
    "chat": ("render-chat", "/v1/chat/completions/render"),
    "completions": ("render-completion", "/v1/completions/render"),
    "tokenize": ("tokenize", "/tokenize"),
    "messages": ("render-messages", "/v1/messages/render"),
    "tokenizer_info": ("tokenizer-info", "/tokenizer_info"),
    "models": ("models", "/v1/models"),
}
_GET_ENDPOINTS = frozenset({"/tokenizer_info", "/v1/models"})


def _record_config(lib: Any, cases: dict[str, Any], name: str, config: dict[str, Any], args: Any) -> list[dict[str, Any]]:
    model = config["model"]
    models_root = Path(args.models_root)
    model_dir = ROOT / model.removeprefix("repo:") if model.startswith("repo:") else models_root / model
    cmd = lib.format_command(
        args.vllm_cmd, model=str(model_dir), port=args.port, name=config["served_model_name"],
        args=list(config.get("args", [])), config=name,
    )  # fmt: skip
    logs = Path(args.logs)
    logs.mkdir(parents=True, exist_ok=True)
    server = lib.Server(cmd, args.port, logs / f"vllm-{name}.log")
    records: list[dict[str, Any]] = []
    if not server.wait_healthy(600):
        server.stop()
        print(f"[{name}] vLLM did not start", flush=True)
        return records
    try:
        with httpx.Client(timeout=120) as client:
            for scenario, case in cases[config["cases"][1]].items():
                body = {k: v for k, v in case.items() if k != "_endpoint"}
                family, endpoint = _ENDPOINTS[case.get("_endpoint", "chat")]
                record: dict[str, Any] = {
                    "id": f"{name}-{scenario}",
                    "family": family,
                    "config": name,
                    "endpoint": endpoint,
                    "method": "GET" if endpoint in _GET_ENDPOINTS else "POST",
                    "request": {"model": config["served_model_name"], **body},
                    "scenario": scenario,
                }
                result = lib.run_case(client, server.url, record)
                if result["status"] >= 500:
                    print(f"[{name}] {scenario}: vLLM answered {result['status']}, dropped", flush=True)
                    continue
                record["status"] = result["status"]
                record["response"] = result["response"]
                if endpoint == "/tokenizer_info":  # the model folder of the recording machine
                    record["ignore_paths"] = ["$.name_or_path"]
                records.append(record)
    finally:
        server.stop()
    print(f"[{name}] recorded {len(records)}", flush=True)
    return records


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models-root", default=str(ROOT.parent / "shared"))
    ap.add_argument("--configs", default=str(ROOT / "tests/golden/configs-render41.json"))
    ap.add_argument("--out", default=str(ROOT / "tests/golden/vllm-render41.jsonl"))
    ap.add_argument("--cases-module", default="golden_cases_render41")
    ap.add_argument("--vllm-cmd", required=True)
    ap.add_argument("--port", type=int, default=20790)
    ap.add_argument("--logs", default="/tmp/vllm-render41-logs")
    ap.add_argument("--only", nargs="*", default=None)
    args = ap.parse_args()
    sys.path.insert(0, str(Path(args.models_root) / "parity"))
    import paritylib as lib  # type: ignore[import-not-found]

    cases = importlib.import_module(args.cases_module).RENDER_CASES
    configs = {k: v for k, v in json.loads(Path(args.configs).read_text()).items() if not k.startswith("_")}
    wanted = {
        k: v for k, v in configs.items() if v["cases"][0] == "render" and (not args.only or k in args.only)
    }
    out = Path(args.out)
    records = [r for r in lib.read_jsonl(out) if r["config"] not in wanted] if out.exists() else []
    for name, config in wanted.items():
        records.extend(_record_config(lib, cases, name, config, args))
        _write(out, records)  # after each config, so a long run can be checked as it goes
    return 0


def _write(out: Path, records: list[dict[str, Any]]) -> None:
    ordered = sorted(records, key=lambda r: (r["config"], r["id"]))
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ordered), encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
