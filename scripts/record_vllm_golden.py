#!/usr/bin/env python3
"""Record the parser golden corpus from a real vLLM 0.33.0 render server.

Run with a vLLM installed in a separate venv (never a dependency of tokenfront):

    python scripts/record_vllm_golden.py --models-root ../shared \
        --vllm-cmd 'VLLM_TARGET_DEVICE=cpu /path/to/vllm-venv/bin/vllm launch render \
            --model {model} --served-model-name {name} --host 127.0.0.1 --port {port} {args}'

For every config in tests/golden/configs.json it starts the server, turns each case of
scripts/golden_cases.py into a non-streaming and a one-token-per-chunk streaming derender
request (prompt ids from vLLM's own render, output ids from its /tokenize), and stores the
answers in tests/golden/vllm-parsers.jsonl, in the shared parity corpus format, so
`../shared/parity/replay.py --configs-file tests/golden/configs.json` replays it.
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

import golden_cases  # noqa: E402


def _paritylib(models_root: Path) -> Any:
    sys.path.insert(0, str(models_root / "parity"))
    import paritylib  # type: ignore[import-not-found]

    return paritylib


def _eos_id(model_dir: Path) -> int | None:
    try:
        gen = json.loads((model_dir / "generation_config.json").read_text())
    except FileNotFoundError:
        return None
    eos = gen.get("eos_token_id")
    if isinstance(eos, list):
        return eos[0] if eos else None
    return eos


def cases_for(config: dict[str, Any]) -> list[golden_cases.Case]:
    kind, name = config["cases"]
    if kind == "list":  # a whole case list from a --cases-module (golden_cases.CASE_LISTS)
        return list(getattr(golden_cases, "CASE_LISTS", {})[name]())
    if kind == "tool":
        return golden_cases.tool_cases(golden_cases.FORMATS[name])
    start, end = golden_cases.REASONING_FORMATS[name]
    return golden_cases.reasoning_cases(start, end)


def build_chat_request(config: dict[str, Any], case: golden_cases.Case) -> dict[str, Any]:
    request: dict[str, Any] = {
        "model": config["served_model_name"],
        "messages": [{"role": "user", "content": "What's the weather in Paris? Think first."}],
    }
    if case.with_tools:
        request["tools"] = golden_cases.TOOLS
    kwargs = dict(config.get("chat_template_kwargs", {}))
    extra = dict(case.request)
    if "chat_template_kwargs" in extra:
        kwargs.update(extra.pop("chat_template_kwargs"))
    if kwargs:
        request["chat_template_kwargs"] = kwargs
    request.update(extra)
    return request


def record_config(
    lib: Any, name: str, config: dict[str, Any], models_root: Path, template: str, port: int, logs: Path
) -> list[dict[str, Any]]:
    model = config["model"]
    model_dir = ROOT / model.removeprefix("repo:") if model.startswith("repo:") else models_root / model
    cmd = lib.format_command(
        template,
        model=str(model_dir),
        port=port,
        name=config["served_model_name"],
        args=list(config.get("args", [])),
        config=name,
    )
    server = lib.Server(cmd, port, logs / f"vllm-{name}.log")
    records: list[dict[str, Any]] = []
    if not server.wait_healthy(600):
        server.stop()
        print(f"[{name}] vLLM did not start; see {logs}", flush=True)
        return records
    # Configs whose case outputs carry their own stop tokens set "append_eos": false.
    eos = _eos_id(model_dir) if config.get("append_eos", True) else None
    try:
        with httpx.Client(timeout=120) as client:
            for case in cases_for(config):
                chat_request = build_chat_request(config, case)
                rendered = client.post(f"{server.url}/v1/chat/completions/render", json=chat_request)
                prompt_ids = rendered.json().get("token_ids") if rendered.status_code == 200 else None
                tok = client.post(
                    f"{server.url}/tokenize",
                    json={"model": config["served_model_name"], "prompt": case.output, "add_special_tokens": False},
                )
                output_ids = list(tok.json()["tokens"])
                if case.finish_reason == "stop" and eos is not None:
                    output_ids.append(eos)
                base = {
                    "model": config["served_model_name"],
                    "chat_request": chat_request,
                    "prompt_tokens": len(prompt_ids or []),
                }
                if prompt_ids is not None:
                    base["prompt_token_ids"] = prompt_ids
                plain_req = dict(base)
                plain_req["generate_response"] = {
                    "request_id": f"gen-{name}-{case.scenario}",
                    "choices": [
                        {"index": 0, "token_ids": output_ids, "finish_reason": case.finish_reason, "stop_reason": None}
                    ],
                }
                chunks = []
                for i, tid in enumerate(output_ids):
                    choice: dict[str, Any] = {"index": 0, "token_ids": [tid]}
                    chunk: dict[str, Any] = {"request_id": "gen-stream", "choices": [choice]}
                    if i == len(output_ids) - 1:
                        choice["finish_reason"] = case.finish_reason
                        chunk["usage"] = {
                            "prompt_tokens": len(prompt_ids or []),
                            "completion_tokens": len(output_ids),
                            "total_tokens": len(prompt_ids or []) + len(output_ids),
                        }
                    chunks.append(chunk)
                variants = [
                    ("derender-chat", plain_req),
                    ("stream", {"kind": "stream", "base": base, "chunks": chunks}),
                ]
                for family, request in variants:
                    record = {
                        "id": f"tf-{name}-{case.scenario}-{'stream' if family == 'stream' else 'once'}",
                        "family": family,
                        "config": name,
                        "endpoint": "/v1/chat/completions/derender",
                        "method": "POST",
                        "request": request,
                        "scenario": case.scenario,
                        "output_text": case.output,
                    }
                    result = lib.run_case(client, server.url, record)
                    record["status"] = result["status"]
                    record["response"] = result["response"]
                    records.append(record)
    finally:
        server.stop()
    print(f"[{name}] recorded {len(records)} cases", flush=True)
    return records


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models-root", default=str(ROOT.parent / "shared"))
    ap.add_argument("--configs", default=str(ROOT / "tests/golden/configs.json"))
    ap.add_argument("--out", default=str(ROOT / "tests/golden/vllm-parsers.jsonl"))
    ap.add_argument("--vllm-cmd", required=True)
    ap.add_argument("--only", nargs="*", help="record only these configs (others are kept)")
    ap.add_argument(
        "--cases-module",
        action="append",
        default=[],
        help="extra module in scripts/ that adds entries to golden_cases.FORMATS / REASONING_FORMATS",
    )
    ap.add_argument("--port", type=int, default=8750)
    ap.add_argument("--logs", default="/tmp/vllm-golden-logs")
    args = ap.parse_args()

    for module in args.cases_module:
        importlib.import_module(module)
    models_root = Path(args.models_root)
    lib = _paritylib(models_root)
    configs = {k: v for k, v in json.loads(Path(args.configs).read_text()).items() if not k.startswith("_")}
    out = Path(args.out)
    kept: list[dict[str, Any]] = []
    if args.only and out.exists():
        kept = [r for r in lib.read_jsonl(out) if r["config"] not in set(args.only)]
    logs = Path(args.logs)
    logs.mkdir(parents=True, exist_ok=True)
    records = list(kept)
    for name, config in configs.items():
        if args.only and name not in args.only:
            continue
        records.extend(record_config(lib, name, config, models_root, args.vllm_cmd, args.port, logs))
        records.sort(key=lambda r: (r["config"], r["id"]))
        out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
