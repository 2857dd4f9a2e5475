"""vLLM's older hermes / llama3_json / llama4_pythonic / pythonic tests under tests/entrypoints/ (issue 8).

Vectors from `vllm-project/vllm`
tests/entrypoints/openai/tool_parsers/test_hermes_tool_parser.py (the QwQ-32B `internet_search`
cases, tests/parsers/vllm_vectors/hermes.entrypoints.json), one-shot and streamed one token per
delta by `vllm_vectors_run` on the shared qwen3 tokenizer (`<tool_call>` is one token there, as
in QwQ-32B's). The entrypoints copies of the llama3_json, llama4_pythonic and pythonic tests
assert nothing beyond what <parser>.json already holds; tests/entrypoints/tool_parsers/
test_hermes_tool_parser.py holds only server tests that need a GPU model. Every vector is
followed (`NOT_FOLLOWED` is empty).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_run import needs_models, pinned_cases, problems

SOURCE = "tests/entrypoints/openai/tool_parsers/test_hermes_tool_parser.py"

# "<test id after the file path>:<mode>" (or without ":<mode>" for every mode) -> reason.
NOT_FOLLOWED: dict[str, str] = {}


@needs_models
@pytest.mark.parametrize(("vec", "mode"), pinned_cases("hermes", NOT_FOLLOWED, source=SOURCE))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []


STREAMED = [
    c for c in pinned_cases("hermes", NOT_FOLLOWED, source=SOURCE) if c.values[1] == "streaming"
]


@needs_models
@pytest.mark.parametrize(("vec", "mode"), STREAMED)
@pytest.mark.parametrize("chunking", ["mix14", "mix15", "all"])
def test_vllm_vector_multi_token_chunks(vec: dict[str, Any], mode: str, chunking: str) -> None:
    """The joined stream satisfies the test in the engine's multi-token chunkings too."""
    assert problems(vec, mode, chunking) == []
