"""`make bench`: start a real `tokenfront serve` on the built-in model and measure it.

Prints, per workload: req/s, p50/p99 latency and the server's CPU ms per request (from
/proc, so other load on the machine inflates req/s and latency much more than CPU/request);
plus cold start (process start -> first 200 on /health), resident memory after warm-up and
after load, and the one-token streams W7/W7L (total time, first/last chunk latency).

Load is closed-loop on loopback: `wrk` when installed (client and server pinned to different
cores with taskset when there are two or more), else a built-in asyncio client on httpx.
Every workload's answer is checked before it is timed.

  python scripts/bench/run.py [--conc 8] [--duration 5] [--only W1,W4] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workloads import Stream, Workload, build, check  # noqa: E402

HOST = "127.0.0.1"
TICK = os.sysconf("SC_CLK_TCK")
WRK_LUA = """
function init(args)
  local f = assert(io.open(args[1], "rb")); wrk.body = f:read("*a"); f:close()
  wrk.method = "POST"; wrk.headers["Content-Type"] = "application/json"
end
function done(summary, latency, requests)
  io.write(string.format("BENCH %d %d %d %d %d\\n", summary.requests, summary.duration,
    summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.timeout,
    latency:percentile(50), latency:percentile(99)))
end
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def pin(cpu: int | None) -> list[str]:
    if cpu is None or not shutil.which("taskset"):
        return []
    return ["taskset", "-c", str(cpu)]


class Server:
    def __init__(self, cmd: list[str], port: int, log: Path) -> None:
        self.port = port
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(cmd, stdout=log.open("wb"), stderr=subprocess.STDOUT)
        self.cold_start = self._wait_health()

    def _wait_health(self, timeout: float = 180.0) -> float:
        while time.perf_counter() - self.started < timeout:
            if self.proc.poll() is not None:
                raise SystemExit(f"server exited with {self.proc.returncode}")
            try:
                status, _ = request(self.port, "GET", "/health")
                if status == 200:
                    return time.perf_counter() - self.started
            except OSError:
                pass
            time.sleep(0.01)
        raise SystemExit("server did not become healthy")

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def request(port: int, method: str, path: str, body: bytes | None = None) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection(HOST, port, timeout=60)
    try:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        conn.request(method, path, body=body, headers=headers)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def run_wrk(port: int, w: Workload, conc: int, duration: float, client_cpu: int | None,
            tmp: Path) -> dict[str, float]:
    body = tmp / f"{w.wid}.json"
    body.write_bytes(w.body)
    lua = tmp / "post.lua"
    lua.write_text(WRK_LUA)
    cmd = [*pin(client_cpu), "wrk", "-t1", f"-c{conc}", f"-d{max(1, round(duration))}s",
           "-s", str(lua), f"http://{HOST}:{port}{w.path}", "--", str(body)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    line = next(ln for ln in out.splitlines() if ln.startswith("BENCH "))
    n, dur_us, errors, p50, p99 = (int(x) for x in line.split()[1:])
    return {"requests": n, "seconds": dur_us / 1e6, "errors": errors,
            "p50_ms": p50 / 1e3, "p99_ms": p99 / 1e3}


def run_httpx(port: int, w: Workload, conc: int, duration: float) -> dict[str, float]:
    import httpx

    lat: list[float] = []
    errors = 0

    async def client(http: httpx.AsyncClient, stop: float) -> None:
        nonlocal errors
        while time.perf_counter() < stop:
            t0 = time.perf_counter()
            r = await http.post(w.path, content=w.body, headers={"Content-Type": "application/json"})
            lat.append(time.perf_counter() - t0)
            errors += r.status_code != 200

    async def main() -> float:
        limits = httpx.Limits(max_connections=conc, max_keepalive_connections=conc)
        async with httpx.AsyncClient(base_url=f"http://{HOST}:{port}", limits=limits,
                                     timeout=60) as http:
            t0 = time.perf_counter()
            await asyncio.gather(*(client(http, t0 + duration) for _ in range(conc)))
            return time.perf_counter() - t0

    seconds = asyncio.run(main())
    lat.sort()
    return {"requests": len(lat), "seconds": seconds, "errors": errors,
            "p50_ms": lat[len(lat) // 2] * 1e3, "p99_ms": lat[int(len(lat) * 0.99)] * 1e3}


def run_stream(port: int, s: Stream) -> dict[str, Any]:
    conn = http.client.HTTPConnection(HOST, port, timeout=60)
    prefix = json.dumps(s.base, separators=(",", ":"))[:-1]
    state = "null"
    lat: list[float] = []
    names: list[str] = []
    t_start = time.perf_counter()
    for i, tid in enumerate(s.token_ids):
        finish = '"stop"' if i == len(s.token_ids) - 1 else "null"
        body = (f'{prefix},"generate_chunk":{{"request_id":"chatcmpl-{s.wid}","choices":[{{'
                f'"index":0,"finish_reason":{finish},"token_ids":[{tid}]}}]}},'
                f'"stream_state":{state}}}').encode()
        t0 = time.perf_counter()
        conn.request("POST", s.path, body=body, headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        data = resp.read()
        lat.append(time.perf_counter() - t0)
        if resp.status != 200:
            raise SystemExit(f"{s.wid} chunk {i + 1}: HTTP {resp.status} {data[:200]!r}")
        out = json.loads(data)
        state = json.dumps(out["stream_state"], separators=(",", ":"))
        for choice in out["chunk"]["choices"]:
            for call in (choice.get("delta") or {}).get("tool_calls") or []:
                name = (call.get("function") or {}).get("name")
                if name:
                    names.append(name)
    total = time.perf_counter() - t_start
    conn.close()
    if names != s.tool_names:
        raise SystemExit(f"{s.wid}: streamed tool calls {names}")
    return {"chunks": len(lat), "total_s": round(total, 4), "chunk1_ms": round(lat[0] * 1e3, 3),
            "last_ms": round(sorted(lat[-10:])[5] * 1e3, 3)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--conc", type=int, default=8)
    ap.add_argument("--duration", type=float, default=5.0, help="seconds per workload")
    ap.add_argument("--warmup", type=float, default=1.0)
    ap.add_argument("--only", default="", help="comma list, e.g. W1,W4,W7")
    ap.add_argument("--client", choices=("auto", "wrk", "httpx"), default="auto")
    ap.add_argument("--server-cpu", type=int, default=1)
    ap.add_argument("--client-cpu", type=int, default=0)
    ap.add_argument("--no-pin", action="store_true")
    ap.add_argument("--tokenfront", default=str(Path(sys.executable).with_name("tokenfront")))
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args()

    from tokenfront.tokenization.builtin import builtin_model_dir

    model_dir = builtin_model_dir()  # built (and cached) before the server's cold start
    loads, streams = build(model_dir)
    only = {x.strip() for x in args.only.split(",") if x.strip()}
    loads = [w for w in loads if not only or w.wid in only]
    streams = [s for s in streams if not only or s.wid in only]
    two_cores = (os.cpu_count() or 1) >= 2 and not args.no_pin
    server_cpu = args.server_cpu if two_cores else None
    client_cpu = args.client_cpu if two_cores else None
    use_wrk = args.client == "wrk" or (args.client == "auto" and shutil.which("wrk"))

    port = free_port()
    tmp = Path(tempfile.mkdtemp(prefix="tokenfront-bench-"))
    cmd = [*pin(server_cpu), args.tokenfront, "serve", "--host", HOST, "--port", str(port),
           "--tool-call-parser", "hermes", "--enable-auto-tool-choice",
           "--reasoning-parser", "qwen3"]
    server = Server(cmd, port, tmp / "server.log")
    results: dict[str, Any] = {"cold_start_s": round(server.cold_start, 3),
                               "client": "wrk" if use_wrk else "httpx", "conc": args.conc,
                               "workloads": {}, "streams": {}}
    try:
        for w in loads:
            for _ in range(3):
                problem = check(w, *request(port, "POST", w.path, w.body))
                if problem:
                    raise SystemExit(f"{w.wid} {w.name}: {problem}")
        results["rss_after_warmup_mb"] = round(rss_mb(server.proc.pid), 1)
        for w in loads:
            drive = (lambda d, w=w: run_wrk(port, w, args.conc, d, client_cpu, tmp)) if use_wrk \
                else (lambda d, w=w: run_httpx(port, w, args.conc, d))
            if args.warmup > 0:
                drive(args.warmup)
            c0 = cpu_seconds(server.proc.pid)
            r = drive(args.duration)
            cpu = cpu_seconds(server.proc.pid) - c0
            r["rps"] = round(r["requests"] / r["seconds"], 1)
            r["cpu_ms_per_req"] = round(cpu * 1e3 / max(r["requests"], 1), 3)
            results["workloads"][w.wid] = {"name": w.name, **r}
            if r["errors"]:
                raise SystemExit(f"{w.wid}: {r['errors']} errors under load")
            problem = check(w, *request(port, "POST", w.path, w.body))
            if problem:
                raise SystemExit(f"{w.wid} after load: {problem}")
        results["rss_after_load_mb"] = round(rss_mb(server.proc.pid), 1)
        for s in streams:
            results["streams"][s.wid] = run_stream(port, s)
    finally:
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)

    print(f"tokenfront bench (built-in qwen3, client={results['client']}, c={args.conc})")
    print(f"cold start to first 200 on /health: {results['cold_start_s']:.2f} s")
    print(f"RSS: {results.get('rss_after_warmup_mb')} MB after warm-up, "
          f"{results.get('rss_after_load_mb')} MB after load")
    print(f"{'workload':28} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'CPU ms/req':>11}")
    for wid, r in results["workloads"].items():
        print(f"{wid + ' ' + r['name']:28} {r['rps']:>8.1f} {r['p50_ms']:>8.2f} "
              f"{r['p99_ms']:>8.2f} {r['cpu_ms_per_req']:>11.3f}")
    for wid, r in results["streams"].items():
        print(f"{wid} stream: {r['chunks']} one-token chunks in {r['total_s']:.3f} s "
              f"(chunk 1 {r['chunk1_ms']} ms, last {r['last_ms']} ms)")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
