"""pytest cases for the DeepSeek DSML parsers' vLLM vectors (deepseek_v32 / v4 / v41).

Tool and reasoning vectors alike run through `vllm_vectors_chunked` (the vector's own
reasoning parser too, `"tools": []` as a request without tools): one-shot, and streamed one
token per delta, along the test's own deltas and as one delta.
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_loader import load_vectors

CHUNKINGS: tuple[int | str | None, ...] = (1, "vector", None)


def vector_cases(parser: str, not_followed: set[str]) -> list[Any]:
    """(vector, mode, chunk) params for every vector of `parser` except `not_followed` tests."""
    out = []
    for vec in load_vectors(parser):
        if vec["source"].split("::")[-1] in not_followed:
            continue
        modes = ["non_streaming", "streaming"] if vec["mode"] == "both" else [vec["mode"]]
        for mode in modes:
            for chunk in CHUNKINGS if mode == "streaming" else (None,):
                label = f"{vec['source']}:{mode}" + (f":{chunk}" if mode == "streaming" else "")
                out.append(pytest.param(vec, mode, chunk, id=label))
    return out
