"""vLLM's Inkling parser tests (issue 8) pinned through the served pipeline.

Vectors from `vllm-project/vllm` tests/parser/engine/test_inkling.py (tests/parsers/vllm_vectors/
inkling.json): the combined reasoning + tool parser, the tool parser alone, prompt-seeded starts
(`prompt_tail`), one-shot and streamed one token per delta. Internals (engine states, token
counting, the argument converter) are not transcribed.
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_run import needs_models, pinned_cases, problems

SOURCE = "tests/parser/engine/test_inkling.py"



@needs_models
@pytest.mark.parametrize(("vec", "mode"), pinned_cases("inkling", source=SOURCE))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
