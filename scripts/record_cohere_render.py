#!/usr/bin/env python3
"""Record render-chat golden cases for the Cohere Command configs from vLLM 0.33.0.

Runs `record_groupa_render.py` over tests/golden/configs-cohererender.json with the render
requests of `golden_cases_cohererender.RENDER_CASES`, into tests/golden/vllm-cohererender.jsonl.
Takes the same `--vllm-cmd` / `--port` / `--logs` arguments, plus `--only CONFIG...` to record
some configs again (the records of the others are kept). Every request goes on a new connection:
vLLM answers a schema xgrammar rejects with a 500 from an exception that escapes the app, and
uvicorn then closes the connection, which a reused connection would see as a transport error.
"""

from __future__ import annotations

import json
import sys
import tempfile
import types
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import golden_cases_cohererender  # noqa: E402
import record_groupa_render  # noqa: E402


def _fresh_client(**kwargs: Any) -> httpx.Client:
    return httpx.Client(limits=httpx.Limits(max_keepalive_connections=0), **kwargs)


def main() -> int:
    record_groupa_render.golden_cases_groupa = golden_cases_cohererender  # type: ignore[assignment]
    record_groupa_render.httpx = types.SimpleNamespace(Client=_fresh_client)  # type: ignore[assignment]
    golden = HERE.parent / "tests" / "golden"
    configs = golden / "configs-cohererender.json"
    if "--only" in sys.argv:
        at = sys.argv.index("--only")
        names = []
        while at + 1 < len(sys.argv) and not sys.argv[at + 1].startswith("--"):
            names.append(sys.argv.pop(at + 1))
        sys.argv.pop(at)
        wanted = {k: v for k, v in json.loads(configs.read_text()).items() if k in names}
        chosen = Path(tempfile.mkdtemp()) / "configs.json"
        chosen.write_text(json.dumps(wanted), encoding="utf-8")
        configs = chosen
    sys.argv[1:1] = ["--configs", str(configs), "--out", str(golden / "vllm-cohererender.jsonl")]
    return record_groupa_render.main()


if __name__ == "__main__":
    raise SystemExit(main())
