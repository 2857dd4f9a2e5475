#!/usr/bin/env python3
"""Record gpt-oss chat render golden cases (family render-chat) from a real vLLM 0.33.0.

For every config of tests/golden/configs-gptossrender.json (`"cases": ["render", NAME]`) starts
`vllm launch render` and stores its answers to `golden_cases_gptoss.RENDER_CASES[NAME]` (chat
render, or `/tokenize` for cases with `"_endpoint": "/tokenize"`) in
tests/golden/vllm-gptossrender.jsonl. vLLM renders gpt-oss chats with Harmony and dates the
system message: each server gets its config's `env` (VLLM_SYSTEM_START_DATE, and
VLLM_ENFORCE_STRICT_TOOL_CALLING for the lax config); run it with TIKTOKEN_ENCODINGS_BASE pointing
at the built model dir (its o200k_base.tiktoken).
"""

from __future__ import annotations

import sys
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

import golden_cases_gptoss  # noqa: E402
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
        __doc__.splitlines()[0], configs="tests/golden/configs-gptossrender.json",
        out="tests/golden/vllm-gptossrender.jsonl", port=8790,
    )  # fmt: skip
    records = []
    for name, config, url in vllm_servers(args, load_configs(args.configs), wait=900):
        with httpx.Client(timeout=120) as client:
            for scenario, case in golden_cases_gptoss.RENDER_CASES[config["cases"][1]].items():
                body = {k: v for k, v in case.items() if k != "_endpoint"}
                endpoint = case.get("_endpoint", "/v1/chat/completions/render")
                family = "tokenize" if endpoint == "/tokenize" else "render-chat"
                records.append(answer(client, url, render_record(name, config, scenario, body, endpoint, family)))
    write_records(args.out, records)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
