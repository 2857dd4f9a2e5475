"""What the golden recorders share: their command line and one vLLM 0.33.0 server per config."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def recorder_arguments(description: str, *, configs: str, out: str, port: int) -> argparse.Namespace:
    """`--models-root`, `--configs`, `--out`, `--vllm-cmd`, `--port`, `--logs`; the shared
    harness (`paritylib`) becomes importable."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--models-root", default=str(ROOT.parent / "shared"))
    ap.add_argument("--configs", default=str(ROOT / configs))
    ap.add_argument("--out", default=str(ROOT / out))
    ap.add_argument("--vllm-cmd", required=True)
    ap.add_argument("--port", type=int, default=port)
    ap.add_argument("--logs", default="/tmp/vllm-golden-logs")
    args = ap.parse_args()
    sys.path.insert(0, str(Path(args.models_root) / "parity"))
    return args


def load_configs(path: str) -> dict[str, dict[str, Any]]:
    configs = json.loads(Path(path).read_text())
    return {k: v for k, v in configs.items() if not k.startswith("_")}


def vllm_servers(
    args: argparse.Namespace, configs: dict[str, dict[str, Any]], *, wait: float = 600
) -> Iterator[tuple[str, dict[str, Any], str]]:
    """`(name, config, base url)` with that config's vLLM running (stopped after the caller's
    turn); a server that does not start is reported and skipped. A `repo:` model is a folder
    of this repository, others are under `--models-root`."""
    import paritylib as lib  # type: ignore[import-not-found]

    logs = Path(args.logs)
    logs.mkdir(parents=True, exist_ok=True)
    for name, config in configs.items():
        model = config["model"]
        if model.startswith("repo:"):
            model_dir = ROOT / model.removeprefix("repo:")
        else:
            model_dir = Path(args.models_root) / model
        cmd = lib.format_command(
            args.vllm_cmd, model=str(model_dir), port=args.port, name=config["served_model_name"],
            args=list(config.get("args", [])), config=name,
        )  # fmt: skip
        server = lib.Server(cmd, args.port, logs / f"vllm-{name}.log", env=config.get("env"))
        if not server.wait_healthy(wait):
            server.stop()
            print(f"[{name}] vLLM did not start", flush=True)
            continue
        try:
            yield name, config, server.url
        finally:
            server.stop()
        print(f"[{name}] recorded", flush=True)


def write_records(out: str | Path, records: list[dict[str, Any]]) -> None:
    ordered = sorted(records, key=lambda r: (r["config"], r["id"]))
    Path(out).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ordered), encoding="utf-8")


def render_record(
    name: str, config: dict[str, Any], scenario: str, body: dict[str, Any], endpoint: str, family: str
) -> dict[str, Any]:
    """A corpus record (without its answer) of a POST request the recorders build from a case."""
    return {
        "id": f"tf-{name}-{scenario}",
        "family": family,
        "config": name,
        "endpoint": endpoint,
        "method": "POST",
        "request": {"model": config["served_model_name"], **body},
        "scenario": scenario,
    }


def answer(client: Any, url: str, record: dict[str, Any]) -> dict[str, Any]:
    """`record` with vLLM's status and response."""
    import paritylib as lib  # type: ignore[import-not-found]

    result = lib.run_case(client, url, record)
    record["status"] = result["status"]
    record["response"] = result["response"]
    return record
