#!/usr/bin/env python3
"""Record render-chat golden cases for the response-template (`hf`) configs from vLLM 0.33.0.

Runs `record_groupa_render.py` over tests/golden/configs-rtemplaterender.json with the render
requests of `golden_cases_rtemplate.RENDER_CASES`, into tests/golden/vllm-rtemplaterender.jsonl.
Takes the same `--vllm-cmd` / `--port` / `--logs` arguments; `--configs` / `--out` given after them
record another render group over the same case table (the literal-delimiter beam models:
`--configs tests/golden/configs-beamgrammarrender.json --out tests/golden/vllm-beamgrammarrender.jsonl`,
cases from `golden_cases_beamgrammar`).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import golden_cases_beamgrammar  # noqa: E402, F401  (adds RENDER_CASES['beam-grammar'])
import golden_cases_rtemplate  # noqa: E402
import record_groupa_render  # noqa: E402


def main() -> int:
    record_groupa_render.golden_cases_groupa = golden_cases_rtemplate  # type: ignore[assignment]
    golden = HERE.parent / "tests" / "golden"
    sys.argv[1:1] = [  # later --configs / --out arguments override these
        "--configs", str(golden / "configs-rtemplaterender.json"),
        "--out", str(golden / "vllm-rtemplaterender.jsonl"),
    ]
    return record_groupa_render.main()


if __name__ == "__main__":
    raise SystemExit(main())
