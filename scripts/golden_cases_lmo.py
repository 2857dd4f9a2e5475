"""Cases of the language-model-only corpus: the dsimage image requests (and a text one) on a server
started with `--language-model-only` or a zero image limit, recorded by
`scripts/record_render41_golden.py --configs tests/golden/configs-lmo.json --out
tests/golden/vllm-lmo.jsonl --cases-module golden_cases_lmo`.
"""

from __future__ import annotations

from typing import Any

from golden_cases_dsimage import IMAGES

RENDER_CASES: dict[str, dict[str, dict[str, Any]]] = {
    "images": {**IMAGES, "text_only": {"messages": [{"role": "user", "content": "Hi"}]}},
}
