"""Cases of the context-length corpus: how vLLM derives `max_model_len` from config.json (the
smallest length key, `model_max_length`, RoPE scaling factors, `--disable-sliding-window`,
`--max-model-len auto`), seen in GET /v1/models and in a render whose prompt and `max_tokens` go
past it. Recorded by `scripts/record_render41_golden.py --configs tests/golden/configs-maxlen.json
--out tests/golden/vllm-maxlen.jsonl --cases-module golden_cases_maxlen`.
"""

from __future__ import annotations

from typing import Any

RENDER_CASES: dict[str, dict[str, dict[str, Any]]] = {
    "maxlen": {
        "models": {"_endpoint": "models"},
        "max_tokens_past_the_context": {
            "messages": [{"role": "user", "content": "Hi"}],
            "max_tokens": 10_000_000,
        },
        "completion_max_tokens_past_the_context": {
            "_endpoint": "completions",
            "prompt": "Hi",
            "max_tokens": 10_000_000,
        },
    },
}
