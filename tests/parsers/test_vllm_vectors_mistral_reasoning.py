"""Regression vectors for the mistral reasoning parser (vLLM parser-test vectors, issue 8).

From tests/parser/mistral/test_reasoning.py (`vllm-project/vllm`): v13 vectors run on
tests/models/mistral-v13 (`[THINK]` / `[/THINK]` special tokens), one-shot and streamed one
token per delta. The v11 `<think>`-as-text vectors need a mistral-common tokenizer with grammar
support and are not pinned here.
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import cases, needs_models, problems

V13 = {
    vec["source"].split("::")[-1]
    for vec in load_vectors("mistral", kind="reasoning")
    if vec.get("mistral_tokenizer") == "v13"
}


@needs_models
@pytest.mark.parametrize(("vec", "mode"), cases("mistral", V13, kind="reasoning"))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
