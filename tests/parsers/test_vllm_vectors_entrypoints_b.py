"""vLLM's older parser tests under tests/entrypoints/ (issue 8) pinned through the served pipeline.

Vectors from `vllm-project/vllm`
tests/entrypoints/openai/tool_parsers/test_deepseekv3_tool_parser.py,
test_gigachat3_tool_parser.py, test_granite4_tool_parser.py, test_granite_tool_parser.py and
tests/entrypoints/openai/reasoning_parsers/test_deepseekr1_reasoning_parser.py
(tests/parsers/vllm_vectors/<parser>.entrypoints.json; the cases these older copies share with
the newer tests/tool_parsers/ and tests/reasoning/ files are not repeated there; the
deepseek_r1 file's later version, 5,222 characters, reads output without <think> as reasoning
like tests/reasoning/, so its older `no_streaming0/1` ids are not kept), one-shot and
streamed one token per delta by `vllm_vectors_run`. `NOT_FOLLOWED` lists the vectors tokenfront
does not satisfy, with the reason (docs/deviations.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_run import needs_models, one_shot, pinned_cases, problems, streamed

TOOLS = "tests/entrypoints/openai/tool_parsers/"
REASONING = "tests/entrypoints/openai/reasoning_parsers/"
SOURCES = {
    "deepseek_v3": TOOLS + "test_deepseekv3_tool_parser.py",
    "gigachat3": TOOLS + "test_gigachat3_tool_parser.py",
    "granite4": TOOLS + "test_granite4_tool_parser.py",
    "granite": TOOLS + "test_granite_tool_parser.py",
    "deepseek_r1": REASONING + "test_deepseekr1_reasoning_parser.py",
}

# "<test id after the file path>:<mode>" (or without ":<mode>" for every mode) -> reason.
NOT_FOLLOWED: dict[str, str] = {}


def _cases() -> list[Any]:
    out: list[Any] = []
    for parser, source in SOURCES.items():
        out += pinned_cases(parser, NOT_FOLLOWED, source=source)
    return out


def _reconstruction_cases() -> list[Any]:
    return [
        pytest.param(p.values[0], id=p.id)
        for p in _cases()
        if "stream_matches_nonstream" in p.values[0]["asserted"]
    ]


@needs_models
@pytest.mark.parametrize(("vec", "mode"), _cases())
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []


@needs_models
@pytest.mark.parametrize("vec", _reconstruction_cases())
def test_stream_matches_one_shot(vec: dict[str, Any]) -> None:
    """The common suite's test_streaming_reconstruction: streamed content and calls (name,
    exact arguments string) equal the one-shot ones."""
    content, _, calls = one_shot(vec)
    s_content, _, s_calls = streamed(vec)
    assert (s_content or None, s_calls) == (content or None, calls)
