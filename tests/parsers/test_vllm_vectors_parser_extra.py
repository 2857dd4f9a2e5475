"""vLLM's unified-parser tests under tests/parser/ (issue 8, group `parser-extra`) pinned through
the served pipeline.

Vectors from `vllm-project/vllm` (tests/parsers/vllm_vectors/<parser>.parser-extra.json):
tests/parser/test_parse.py, test_streaming.py, test_include_reasoning.py (a plain `<think>`
reasoning parser served as `deepseek_r1`, the engine `qwen3`, with `hermes`), test_mistral.py,
test_chat_parsing.py (the Gemma 4 response template, `hf` on tests/models/rtemplate-gemma),
tests/parser/engine/test_replay.py and test_delegating_replay.py (trace-builder qwen3 samples
under `qwen3_coder` + `qwen3`), test_reasoning_token_counts.py and test_completed_metrics.py
(their output assertions), run one-shot and streamed one token per delta (or in the test's own
deltas) by `vllm_vectors_run`. `NOT_FOLLOWED` lists the vectors tokenfront does not satisfy,
with the reason (vLLM 0.33.0's served answer, kept for parity).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_run import needs_models, pinned_cases, problems

_FORCED = (
    "served vLLM 0.33.0 returns content '' (not None) for tool_choice required / named "
    "(message assembly); hermes/mistral read such output as 0.33.0 does (goldens "
    "pcore-qwen3-hermes-tool-{named,required}-once, pub-qwen3-hermes-derender-chat-026/027)"
)
_SUPPRESS = (
    "vLLM 0.33.0 drops qwen3_coder call markup under tool_choice none (_suppress_tool_calls), "
    "as the newer test_replay.py (@5b83cf0a, TestToolCallFilteringReplay suppress_tool_calls) "
    "asserts; golden tf-qwen3_coder-tool_choice_none-{once,stream} keeps that answer"
)

# (parser, vLLM test file) -> {"<test id after the file path>": reason}
NOT_FOLLOWED: dict[tuple[str, str], dict[str, str]] = {
    ("hermes", "tests/parser/test_parse.py"): {
        "test_parse_named_tool_choice": _FORCED,
        "test_parse_named_tool_choice_with_reasoning": _FORCED,
        "test_parse_required_tool_choice": _FORCED,
        "test_parse_named_tool_choice_content_none": _FORCED,
        "test_parse_required_tool_choice_content_none": _FORCED,
    },
    ("hermes", "tests/parser/test_streaming.py"): {},
    ("hermes", "tests/parser/test_include_reasoning.py"): {},
    ("deepseek_r1", "tests/parser/test_parse.py"): {},
    ("deepseek_r1", "tests/parser/test_streaming.py"): {},
    ("deepseek_r1", "tests/parser/test_include_reasoning.py"): {},
    ("qwen3", "tests/parser/test_streaming.py"): {},
    ("mistral", "tests/parser/test_mistral.py"): {
        "TestParse::test_named_tool_choice": _FORCED,
        "TestParse::test_required_tool_choice": _FORCED,
    },
    ("hf", "tests/parser/test_chat_parsing.py"): {},
    ("qwen3_coder", "tests/parser/engine/test_delegating_replay.py"): {},
    ("qwen3_coder", "tests/parser/engine/test_replay.py"): {
        f"TestSkipToolParsingReplay::test_replay[Qwen3Parser-qwen3-{sample}]": _SUPPRESS
        for sample in (
            "think-then-tool",
            "think-then-parallel-tools",
            "complex-json-args",
            "think-content-tool",
            "think-whitespace-tool",
        )
    },
    ("qwen3_coder", "tests/parser/engine/test_reasoning_token_counts.py"): {},
    ("deepseek_v4", "tests/parser/engine/test_reasoning_token_counts.py"): {},
    ("glm47", "tests/parser/engine/test_reasoning_token_counts.py"): {},
    ("deepseek_v41", "tests/parser/engine/test_reasoning_token_counts.py"): {},
    ("kimi_k2", "tests/parser/engine/test_completed_metrics.py"): {},
}


def _cases() -> list[Any]:
    out: list[Any] = []
    for (parser, source), skip in NOT_FOLLOWED.items():
        params = pinned_cases(parser, skip, source=source)
        assert params, (parser, source)
        for param in params:
            vec, mode = param.values
            out.append(pytest.param(vec, mode, id=f"{parser}:{param.id}"))
    return out


@needs_models
@pytest.mark.parametrize(("vec", "mode"), _cases())
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
