"""Parity against vLLM 0.33.0: replay the shared public corpus on real `tokenfront serve` processes.

Only the families listed in `expected_families.json` are replayed and asserted (>= 99.5% each);
the list grows as features land. One server per config, two at a time. Skipped, with the reason
shown, when the shared material (../shared next to the repository) is absent.
Set TOKENFRONT_PARITY_PORTS=LO-HI to choose the servers' port range (default 8620-8639).
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("TOKENFRONT_SHARED", REPO.parent / "shared"))
PARITY = SHARED / "parity"
GOLDEN = PARITY / "golden-public.jsonl"
EXPECTED = Path(__file__).with_name("expected_families.json")
THRESHOLD = 99.5
PARALLEL_SERVERS = 2

FAMILIES: list[str] = json.loads(EXPECTED.read_text(encoding="utf-8"))["families"]

pytestmark = pytest.mark.skipif(
    not (PARITY / "paritylib.py").is_file() or not GOLDEN.is_file(),
    reason=f"shared parity material not found at {PARITY} (parity replay skipped)",
)

SERVER_CMD = (
    f"{shlex.quote(sys.executable)} -m tokenfront serve --model {{model}} "
    "--served-model-name {name} --host 127.0.0.1 --port {port} {args}"
)


def _paritylib() -> ModuleType:
    if str(PARITY) not in sys.path:
        sys.path.insert(0, str(PARITY))
    import paritylib

    return paritylib


def _port_range() -> tuple[int, int]:
    lo, _, hi = os.environ.get("TOKENFRONT_PARITY_PORTS", "8620-8639").partition("-")
    return int(lo), int(hi)


class _Ports:
    """Hands out distinct free ports to servers started in parallel."""

    def __init__(self, lib: ModuleType) -> None:
        self.lib = lib
        self.lo, self.hi = _port_range()
        self.taken: set[int] = set()
        self.lock = threading.Lock()

    def take(self) -> int:
        with self.lock:
            port: int = self.lib.pick_port(self.lo, self.hi, self.taken)
            self.taken.add(port)
            return port

    def give_back(self, port: int) -> None:
        with self.lock:
            self.taken.discard(port)


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[tuple[dict, list[str]]]]:
    """Per family: (case, diffs) for every selected golden case."""
    lib = _paritylib()
    cases = [g for g in lib.read_jsonl(GOLDEN) if g["family"] in FAMILIES]
    configs = lib.load_configs()
    by_config: dict[str, list[dict]] = {}
    for case in cases:
        by_config.setdefault(case["config"], []).append(case)
    logs = tmp_path_factory.mktemp("replay-logs")
    results: dict[str, Any] = {}
    lock = threading.Lock()
    ports = _Ports(lib)

    def record(case: dict, result: Any) -> None:
        with lock:
            results[case["id"]] = result

    def run(name: str) -> None:
        if name not in configs:
            return
        port = ports.take()
        try:
            lib.run_config(
                SERVER_CMD,
                name,
                configs[name],
                by_config[name],
                str(SHARED),
                port,
                logs,
                record,
                start_timeout=180.0,
                request_timeout=120.0,
                log=lambda *_: None,
            )
        finally:
            ports.give_back(port)

    with ThreadPoolExecutor(PARALLEL_SERVERS) as pool:
        list(pool.map(run, sorted(by_config)))

    outcome: dict[str, list[tuple[dict, list[str]]]] = {f: [] for f in FAMILIES}
    for case in cases:
        got = results.get(case["id"])
        if got is None:
            diffs = [f"not run (server for {case['config']} missing or failed; logs in {logs})"]
        else:
            try:
                diffs = lib.compare_result(case, case, got)
            except Exception as exc:  # a malformed answer is a failure, not a crash
                diffs = [f"comparison error: {exc!r}"]
        outcome[case["family"]].append((case, diffs))
    return outcome


@pytest.mark.parametrize("family", FAMILIES)
def test_family_parity(family: str, replayed: dict[str, list[tuple[dict, list[str]]]]) -> None:
    rows = replayed[family]
    assert rows, f"no golden cases for family {family!r}"
    failed = [(case, diffs) for case, diffs in rows if diffs]
    pct = 100.0 * (len(rows) - len(failed)) / len(rows)
    shown = "\n".join(
        f"  {case['id']} ({case['config']} {case['endpoint']}): " + "; ".join(diffs[:3])
        for case, diffs in failed[:8]
    )
    assert pct >= THRESHOLD, (
        f"{family}: {len(rows) - len(failed)}/{len(rows)} ({pct:.1f}%) < {THRESHOLD}%\n{shown}"
    )
