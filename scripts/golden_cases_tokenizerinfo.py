"""Cases of the `/tokenizer_info` corpus (`--enable-tokenizer-info-endpoint`), recorded by
`scripts/record_render41_golden.py --configs tests/golden/configs-tokenizerinfo.json --out
tests/golden/vllm-tokenizerinfo.jsonl --cases-module golden_cases_tokenizerinfo`.

Every config gets the one GET; `name_or_path` (the model directory on the recording machine) is
left out of the comparison by the records' `ignore_paths`.
"""

from __future__ import annotations

from typing import Any

RENDER_CASES: dict[str, dict[str, dict[str, Any]]] = {
    "info": {"tokenizer_info": {"_endpoint": "tokenizer_info"}},
}
