"""vLLM's openai (gpt-oss Harmony) tool-parser vectors through the served parser.

Each vector comes from tests/tool_parsers/test_openai_tool_parser.py (`vllm-project/vllm`).
vLLM's tests render Harmony token ids, so the runner reads them on the gpt-oss test model
(tests/models/gpt-oss, built on demand), where the server replaces the configured parsers by
its Harmony reader (tokenfront.parsers.harmony_output), as vLLM 0.33.0 does. Without tools
the `final` channel text is the content.
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import GPT_OSS_BUILDER, cases, needs_models, problems

ALL = {vec["source"].split("::")[-1] for vec in load_vectors("openai", kind="tool")}


@pytest.mark.skipif(not GPT_OSS_BUILDER.exists(), reason="gpt-oss test model source is absent")
@pytest.mark.parametrize(("vec", "mode"), cases("openai", ALL))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []


@needs_models
@pytest.mark.parametrize(("vec", "mode"), cases("openai", ALL))
def test_vllm_vector_without_harmony_tokens(
    vec: dict[str, Any], mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a model without Harmony special tokens the text-level channel engine reads the same
    (its markers then arrive in pieces). Only one-shot arguments are normalised, as in vLLM."""
    import vllm_vectors_run

    monkeypatch.setattr(vllm_vectors_run, "model_for", lambda _vec: "synthetic-multi")
    assert problems(vec, mode) == []
    if mode == "non_streaming":
        streamed = problems(vec, "streaming")
        assert all("!= exact" in p for p in streamed), streamed
