"""vLLM's response-template parser tests (`hf` in vLLM 0.33.0; issue 8) through the served pipeline.

Vectors from `vllm-project/vllm` tests/parser/test_response_template.py (tests/parsers/vllm_vectors/
hf.json) on tests/models/rtemplate-gemma (the test's Gemma 4 response_template); expectations the
test states by comparison with its registered Gemma4Parser are written out. Every vector is
followed, one-shot and streamed one token per delta (those marked `test_deltas_only` in the
test's own deltas). The four `vllm_033_differs` ones (a started call's name streamed before the
region validates, a call without its closer dropped) differ from vLLM 0.33.0 on purpose
(docs/deviations.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_run import needs_models, pinned_cases, problems

SOURCE = "tests/parser/test_response_template.py"


@needs_models
@pytest.mark.parametrize(("vec", "mode"), pinned_cases("hf", source=SOURCE))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
