"""vLLM parser tests found in other indexed versions of files already transcribed (issue 8,
group `versions`, session 35), pinned through the served pipeline.

Vectors from `vllm-project/vllm` (tests/parsers/vllm_vectors/<parser>.versions.json): the tests
a version of the same path holds and the transcribed version lacks (`find_string` on the file's
tests; each vector's notes give the version's size, `source_commit` is null). Among them, the
hermes tests of vLLM issue #45167: a `</tool_call>` (or `<tool_call>`) inside a JSON string of
the arguments is argument text, not a marker (`json_in_markers.call_close`; vLLM 0.33.0 ends the
call there). One-shot and streamed as each test does, by `vllm_vectors_run`.
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_loader import load_vectors, vector_parsers
from vllm_vectors_run import modes, needs_models, problems


def _cases() -> list[Any]:
    out = []
    for parser in vector_parsers():
        for vec in load_vectors(parser, group="versions"):
            for mode in modes(vec):
                name = vec["source"].split("/")[-1]
                out.append(pytest.param(vec, mode, id=f"{parser}:{name}:{mode}"))
    return out


@needs_models
@pytest.mark.parametrize(("vec", "mode"), _cases())
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
