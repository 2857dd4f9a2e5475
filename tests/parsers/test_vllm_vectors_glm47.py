"""Regression vectors for the glm47 tool parser (docs/deviations.md).

Each vector comes from a vLLM parser unit test (`vllm-project/vllm`,
tests/tool_parsers/test_glm47_moe_tool_parser.py, test_glm47_final_delta_bug.py and
tests/parser/engine/test_glm47_stray_tool_call.py); its pytest id starts with that test's path.
A stray `<tool_call>` before the real one no longer swallows the call (vLLM #60703).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_chunked import cases as chunked_cases
from vllm_vectors_chunked import problems as chunked_problems
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import cases, needs_models, problems

TOOL = {vec["source"].split("::")[-1] for vec in load_vectors("glm47", kind="tool")}


@needs_models
@pytest.mark.parametrize(("vec", "mode"), cases("glm47", TOOL))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []


# tests/parser/engine/test_glm47_moe.py (vllm-project/vllm, 14f7a27c776b): reasoning-end and
# content ids over a mock vocabulary (token-id facts the vector format cannot express).
THINK_S, THINK_E, TOOL_S, TOOL_E = 1000, 1001, 1002, 1003
ASSISTANT, OBSERVATION, USER, TEXT = 1004, 1005, 1006, 42
_VOCAB = {
    "<think>": THINK_S,
    "</think>": THINK_E,
    "<tool_call>": TOOL_S,
    "</tool_call>": TOOL_E,
    "<|assistant|>": ASSISTANT,
    "<|observation|>": OBSERVATION,
    "<|user|>": USER,
}


class _MockTokenizer:
    all_special_tokens = list(_VOCAB)

    def get_vocab(self) -> dict[str, int]:
        return dict(_VOCAB)


def _parser(name: str, **kwargs: Any) -> Any:
    from tokenfront.parsers.base import ParseContext
    from tokenfront.parsers.registry import get_reasoning_parser

    return get_reasoning_parser(name)(_MockTokenizer(), ParseContext(chat_template_kwargs=kwargs))


@pytest.mark.parametrize(
    ("ids", "ended"),
    [
        ([THINK_S, TEXT], False),
        ([THINK_S, TEXT, THINK_E, TEXT], True),
        ([THINK_S, TEXT, TOOL_S, TEXT], True),
        ([THINK_S, TEXT, TOOL_S, TEXT, TOOL_E, OBSERVATION, TEXT, ASSISTANT], False),
        ([THINK_S, TEXT, THINK_E, TEXT, USER, TEXT, ASSISTANT], False),
        ([], False),
    ],
)
@pytest.mark.parametrize("name", ["glm47", "glm45"])
def test_is_reasoning_end(name: str, ids: list[int], ended: bool) -> None:
    assert _parser(name).is_reasoning_end(ids) is ended


@pytest.mark.parametrize(
    ("ids", "content"),
    [
        ([THINK_S, TEXT, THINK_E, 20, 21, TOOL_S, 30, TOOL_E], [20, 21, TOOL_S, 30, TOOL_E]),
        (
            [THINK_E, 20, TOOL_S, 30, TOOL_E, 21, TOOL_S, 31, TOOL_E],
            [20, TOOL_S, 30, TOOL_E, 21, TOOL_S, 31, TOOL_E],
        ),
        ([THINK_S, TEXT, TOOL_S, 30, TOOL_E], [TOOL_S, 30, TOOL_E]),
        (
            [THINK_S, TEXT, TOOL_S, 30, TOOL_E, TOOL_S, 31, TOOL_E],
            [TOOL_S, 30, TOOL_E, TOOL_S, 31, TOOL_E],
        ),
        (
            [TOOL_S, 30, TOOL_E, OBSERVATION, TEXT, ASSISTANT, THINK_S, TEXT],
            [TOOL_S, 30, TOOL_E, OBSERVATION, TEXT, ASSISTANT, THINK_S, TEXT],
        ),
        ([20, 21], [20, 21]),
    ],
)
@pytest.mark.parametrize("name", ["glm47", "glm45"])
def test_extract_content_ids(name: str, ids: list[int], content: list[int]) -> None:
    assert _parser(name).extract_content_ids(ids) == content


@pytest.mark.parametrize("name", ["glm47", "glm45"])
def test_thinking_disabled(name: str) -> None:
    parser = _parser(name, thinking=False)
    assert parser.is_reasoning_end([THINK_S, TEXT])
    assert parser.extract_content_ids([THINK_S, TEXT, TOOL_S]) == [THINK_S, TEXT, TOOL_S]


# One-shot, a reasoning section the output closes at once (`</think>…`, `<think></think>…`, an
# empty output) is "" as the tests assert (vLLM 0.33.0: None; docs/deviations.md).
EMPTY_REASONING = {"test_reasoning[shortest_no_streaming]", "test_reasoning[empty]"}


@needs_models
@pytest.mark.parametrize(
    ("vec", "mode", "chunk"), chunked_cases("glm47", EMPTY_REASONING, kind="reasoning")
)
def test_empty_reasoning_vector(vec: dict[str, Any], mode: str, chunk: int | str | None) -> None:
    assert chunked_problems(vec, mode, chunk) == []
