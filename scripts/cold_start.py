"""Cold start: process start to the first 200 on GET /health (the referee bench's measure).

Usage: python scripts/cold_start.py [--runs 5] [--port 21000] [--model DIR] [-- extra serve args]
Prints each run's seconds, the server's CPU seconds (user+sys) and RSS after /health answered, then the median.
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


def one_run(binary: str, model: str, port: int, timeout: float) -> tuple[float, int, float]:
    cmd = [binary, "serve", "--model", model, *DEFAULT_ARGS.format(port=port).split()]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}/health"
        while time.perf_counter() - start < timeout:
            try:
                with urllib.request.urlopen(url, timeout=1) as resp:
                    if resp.status == 200:
                        elapsed = time.perf_counter() - start
                        return elapsed, _rss_kb(proc.pid), _cpu_seconds(proc.pid)
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            if proc.poll() is not None:
                raise RuntimeError(f"server exited with {proc.returncode}")
            time.sleep(0.02)
        raise RuntimeError("no 200 on /health before the timeout")
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--port", type=int, default=21000)
    parser.add_argument("--model", default="/work/shared/models/qwen3")
    parser.add_argument("--bin", default=str(Path(sys.executable).with_name("tokenfront")))
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args()
    times, cpus = [], []
    for i in range(args.runs):
        seconds, rss, cpu = one_run(args.bin, args.model, args.port, args.timeout)
        times.append(seconds)
        cpus.append(cpu)
        print(
            f"run {i + 1}: {seconds:.3f} s, server CPU {cpu:.2f} s, RSS at first 200 {rss / 1024:.0f} MB",
            flush=True,
        )
        time.sleep(0.5)
    print(
        f"median {statistics.median(times):.3f} s (min {min(times):.3f}, max {max(times):.3f}); "
        f"median server CPU {statistics.median(cpus):.2f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
