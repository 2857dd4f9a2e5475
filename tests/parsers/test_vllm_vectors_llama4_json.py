"""vLLM's Llama JSON engine tests (issue 8) through the served llama4_json pipeline.

Vectors from `vllm-project/vllm` tests/parser/engine/test_llama_json.py (tests/parsers/vllm_vectors/
llama4_json.json; the engine parser post-dates 0.33.0). Span-helper and event internals are not
transcribed. The vectors marked `vllm_033_differs` are the engine's changes from the legacy parser
vLLM 0.33.0 serves; llama4_json follows them (tokenfront/parsers/tools/llama4_json.py,
docs/deviations.md) while llama3_json keeps the legacy answers its own tests assert. Every vector
passes one-shot and streamed, one token per delta, in several larger token chunkings, the whole
output in one delta, and along the test's own deltas.
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_chunked import CHUNKINGS, problems
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import modes, needs_models

from tokenfront.parsers.engines.json_repair import closeable

SOURCE = "tests/parser/engine/test_llama_json.py"


def _cases() -> list[Any]:
    return [
        pytest.param(vec, mode, chunk, id=f"{vec['source'].split('::', 1)[1]}:{mode}:{chunk}")
        for vec in load_vectors("llama4_json")
        if vec["source"].startswith(SOURCE)
        for mode in modes(vec)
        for chunk in (CHUNKINGS if mode == "streaming" else (None,))
    ]


@needs_models
@pytest.mark.parametrize(("vec", "mode", "chunk"), _cases())
def test_vllm_vector(vec: dict[str, Any], mode: str, chunk: int | str | None) -> None:
    assert problems(vec, mode, chunk) == []


# test_llama_json.py::TestSpanHelpers: cut back to the last completable point, close by appending.
@pytest.mark.parametrize(
    ("span", "closed"),
    [
        ('{"x": "lo', '{"x": "lo"}'),
        ('{"a": 1, "b": tr', '{"a": 1}'),
        ('{"a": [1, {"b": "c', '{"a": [1, {"b": "c"}]}'),
        ('["a", ', '["a"]'),
        ("{invalid json}", "{}"),
        ('{"x": 1.e+2}', '{"x": 1}'),
        ('{"x": 01}', '{"x": 0}'),
        ('{"x": -}', "{}"),
        ('{"o": {"x": "a\nb"}, "y": 2}', '{"o": {"x": "a"}}'),
        ('{"a": "x\\u00e9', '{"a": "x\\u00e9"}'),
        ('{"a": "x\\u00e', '{"a": "x"}'),
        ('{"a": "x\\qy"}', '{"a": "x"}'),
        ('{"k\\u00e": 1}', "{}"),
        ('{"l": [[], {}], "a": "z"', '{"l": [[], {}], "a": "z"}'),
        ('"str', '"str"'),
        ("42", "42"),
    ],
)
def test_closeable(span: str, closed: str) -> None:
    assert closeable(span) == closed
