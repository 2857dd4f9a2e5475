#!/usr/bin/env python3
"""Record render-chat golden cases for the Cohere Command configs from vLLM 0.33.0.

Runs `record_groupa_render.py` over tests/golden/configs-cohererender.json with the render
requests of `golden_cases_cohererender.RENDER_CASES`, into tests/golden/vllm-cohererender.jsonl.
Takes the same `--vllm-cmd` / `--port` / `--logs` arguments.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import golden_cases_cohererender  # noqa: E402
import record_groupa_render  # noqa: E402


def main() -> int:
    record_groupa_render.golden_cases_groupa = golden_cases_cohererender  # type: ignore[assignment]
    golden = HERE.parent / "tests" / "golden"
    sys.argv[1:1] = [
        "--configs", str(golden / "configs-cohererender.json"),
        "--out", str(golden / "vllm-cohererender.jsonl"),
    ]
    return record_groupa_render.main()


if __name__ == "__main__":
    raise SystemExit(main())
