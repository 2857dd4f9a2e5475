"""Regression vectors for the muse_glimmer parsers (vLLM parser-test vectors, issue 8).

Each vector comes from a vLLM parser unit test (`vllm-project/vllm`, tests/parser/engine/test_muse_glimmer.py); its pytest
id starts with that test's path. They run through the served pipeline one-shot and streamed
(one tokenizer token per delta): reasoning blocks concatenate; a recipient-less header is content (docs/deviations.md). Tool vectors run with muse_glimmer as companion reasoning parser (the served tool + reasoning configuration).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import cases, needs_models, problems

ALL = {vec["source"].split("::")[-1] for vec in load_vectors("muse_glimmer")}


@needs_models
@pytest.mark.parametrize(("vec", "mode"), cases("muse_glimmer", ALL, kind=None))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
