#!/usr/bin/env python3
"""Record render-chat golden cases for the group A encoder configs from a real vLLM 0.33.0.

For configs in tests/golden/configs-groupa.json whose `cases` are ["render", NAME], starts
`vllm launch render` and stores the answers to the chat render requests of
`golden_cases_groupa.RENDER_CASES[NAME]` in the shared corpus format (family render-chat),
merged into tests/golden/vllm-groupa.jsonl (records of other configs are kept).
"""

from __future__ import annotations

import sys
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

import golden_cases_groupa  # noqa: E402
from vllm_recording import (  # noqa: E402
    answer,
    load_configs,
    recorder_arguments,
    render_record,
    vllm_servers,
    write_records,
)


def main() -> int:
    args = recorder_arguments(
        __doc__.splitlines()[0], configs="tests/golden/configs-groupa.json",
        out="tests/golden/vllm-groupa.jsonl", port=8780,
    )  # fmt: skip
    import paritylib as lib  # type: ignore[import-not-found]

    wanted = {k: v for k, v in load_configs(args.configs).items() if v["cases"][0] == "render"}
    out = Path(args.out)
    records = [r for r in lib.read_jsonl(out) if r["config"] not in wanted] if out.exists() else []
    for name, config, url in vllm_servers(args, wanted):
        with httpx.Client(timeout=120) as client:
            for scenario, body in golden_cases_groupa.RENDER_CASES[config["cases"][1]].items():
                record = render_record(
                    name, config, scenario, body, "/v1/chat/completions/render", "render-chat"
                )
                records.append(answer(client, url, record))
    write_records(out, records)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
