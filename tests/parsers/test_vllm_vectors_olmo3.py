"""vLLM's olmo3 tool parser tests (issue 8) through the served pipeline.

Vectors from `vllm-project/vllm` tests/tool_parsers/test_olmo3_tool_parser.py (tests/parsers/
vllm_vectors/olmo3.json, kind tool). A call with a bytes or non-finite argument is dropped and
its siblings kept (docs/deviations.md). The reasoning vector that streams the whole output in
one delta (test_olmo3_reasoning_parser.py) is pinned too.
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import needs_models, pinned_cases, problems

SOURCE = "tests/tool_parsers/test_olmo3_tool_parser.py"



@needs_models
@pytest.mark.parametrize(("vec", "mode"), pinned_cases("olmo3", source=SOURCE))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []


def _single_delta_vectors() -> list[Any]:
    return [
        pytest.param(vec, id=vec["source"].split("::", 1)[1])
        for vec in load_vectors("olmo3", kind="reasoning")
        if vec.get("single_delta_message")
    ]


@needs_models
@pytest.mark.parametrize("vec", _single_delta_vectors())
def test_reasoning_single_delta(vec: dict[str, Any]) -> None:
    """The whole output in one finished delta: the answer after `</think>` is not lost."""
    from vllm_vectors_loader import check_result
    from vllm_vectors_run import request_context, vector_parser

    parser, tok = vector_parser(vec)
    text = vec["model_output"]
    ids = tok.encode(text, add_special_tokens=False)
    delta, _ = parser.stream(None, text, ids, request_context(vec), finished=True)
    assert delta is not None
    found = check_result(vec, content=delta.content, reasoning=delta.reasoning)
    assert found == []
