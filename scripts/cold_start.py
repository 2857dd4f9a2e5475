"""Cold start: process start to the first 200 on GET /health, then GET /v1/models (the referee
bench's measure).

Usage: python scripts/cold_start.py [--runs 5] [--port 21000] [--model DIR] [--cpu N]
                                    [--src NEW_SRC_DIR] [--compare-src OLD_SRC_DIR]
Prints each run's seconds to /health and /v1/models, the server's CPU seconds (user+sys) and RSS
once /v1/models answered, then the medians. `--cpu N` pins the server to core N (the referee runs
it with `taskset -c 1`). `--compare-src DIR` alternates runs of this tree with runs of another
source tree (e.g. `git archive HEAD src | tar -x -C /tmp/old`, then `--compare-src /tmp/old/src`,
which goes first on PYTHONPATH) and prints the medians of both and their ratio; `--src DIR` runs
another tree in place of this one (e.g. a clean `git archive` of HEAD while the work tree holds
other people's uncommitted changes).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

DEFAULT_ARGS = (
    "--served-model-name qwen3 --host 127.0.0.1 --port {port} --tool-call-parser hermes "
    "--enable-auto-tool-choice --reasoning-parser qwen3"
)


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1) as resp:
            return bool(resp.status == 200)
    except (urllib.error.URLError, ConnectionError, OSError):
        return False


def one_run(
    binary: str, model: str, port: int, timeout: float, cpu: int | None, src: str | None
) -> dict[str, float]:
    """Start a server, wait for /health then /v1/models, stop it; the timings."""
    cmd = [binary, "serve", "--model", model, *DEFAULT_ARGS.format(port=port).split()]
    if cpu is not None:
        cmd = ["taskset", "-c", str(cpu), *cmd]
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        base = f"http://127.0.0.1:{port}"
        health = None
        while time.perf_counter() - start < timeout:
            if health is None and _ok(base + "/health"):
                health = time.perf_counter() - start
            if health is not None and _ok(base + "/v1/models"):
                return {
                    "health": health,
                    "models": time.perf_counter() - start,
                    "cpu": _cpu_seconds(proc.pid),
                    "rss_mb": _rss_kb(proc.pid) / 1024,
                }
            if proc.poll() is not None:
                raise RuntimeError(f"server exited with {proc.returncode}")
            time.sleep(0.02)
        raise RuntimeError("no 200 on /health and /v1/models before the timeout")
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _summary(label: str, runs: list[dict[str, float]]) -> str:
    def med(key: str) -> float:
        return statistics.median(r[key] for r in runs)

    health = [r["health"] for r in runs]
    return (
        f"{label}: median /health {med('health'):.3f} s (min {min(health):.3f}, max "
        f"{max(health):.3f}), /v1/models {med('models'):.3f} s, server CPU {med('cpu'):.2f} s, "
        f"RSS {med('rss_mb'):.0f} MB ({len(runs)} runs)"
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--port", type=int, default=21000)
    parser.add_argument("--model", default="/work/shared/models/qwen3")
    parser.add_argument("--bin", default=str(Path(sys.executable).with_name("tokenfront")))
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--cpu", type=int, default=None, help="pin the server to this core")
    parser.add_argument("--compare-src", default=None, help="another src dir, run interleaved")
    parser.add_argument("--src", default=None, help="a src dir to run instead of this tree")
    args = parser.parse_args()
    variants: list[tuple[str, str | None]] = [
        (args.src, str(Path(args.src).resolve())) if args.src else ("this tree", None)
    ]
    if args.compare_src:
        variants.append((f"{args.compare_src}", str(Path(args.compare_src).resolve())))
    results: dict[str, list[dict[str, float]]] = {label: [] for label, _ in variants}
    for i in range(args.runs):
        # Alternate which variant goes first, so a slow spell on a shared box hits both.
        order = variants if i % 2 == 0 else variants[::-1]
        for label, src in order:
            run = one_run(args.bin, args.model, args.port, args.timeout, args.cpu, src)
            results[label].append(run)
            print(
                f"run {i + 1} [{label}]: /health {run['health']:.3f} s, /v1/models "
                f"{run['models']:.3f} s, server CPU {run['cpu']:.2f} s, RSS {run['rss_mb']:.0f} MB",
                flush=True,
            )
            time.sleep(0.3)
    for label, _ in variants:
        print(_summary(label, results[label]))
    if args.compare_src:
        new, old = (statistics.median(r["health"] for r in results[v[0]]) for v in variants)
        print(f"ratio {variants[0][0]} / {args.compare_src} (median /health): {new / old:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
