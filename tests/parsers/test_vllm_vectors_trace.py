"""vLLM's engine replay tests over trace_builder samples (issue 8, group `trace`) pinned through
the served pipeline.

Vectors from `vllm-project/vllm` tests/parser/engine/test_replay.py @5b83cf0a replaying the
samples of tests/parser/engine/trace_builder.py @c053a397 (nine engine parsers, twelve
scenarios; tests/parsers/vllm_vectors/<parser>.trace.json): `TestReplay` (with the holdback
classes' identical assertions), `TestToolCallFilteringReplay[...-suppress_tool_calls]` and
`TestToolCallFilteringNonStreaming` (tool_choice "none"), run one-shot and streamed one token
per delta by `vllm_vectors_run`. vLLM classes map to served parser pairs: Qwen3Parser and
NemotronV3Parser = qwen3_coder + qwen3 / nemotron_v3, MinimaxM2Parser, Gemma4Parser,
SeedOssParser, DeepSeekV4Parser, KimiK2Parser = the same name as tool and reasoning parser,
Glm47MoeParser = glm47 + glm47, DeepSeekV32Parser = deepseek_v32 alone. The session-9 qwen3
vectors of an older test_replay.py (qwen3_coder.parser-extra.json) stay with
test_vllm_vectors_parser_extra.py. `NOT_FOLLOWED` lists the vectors tokenfront does not satisfy,
with the reason (docs/deviations.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_run import needs_models, pinned_cases, problems

SOURCE = "tests/parser/engine/test_replay.py"
CLASSES = ("TestReplay", "TestToolCallFilteringReplay", "TestToolCallFilteringNonStreaming")
PARSERS = (
    "qwen3_coder",
    "minimax_m2",
    "gemma4",
    "seed_oss",
    "deepseek_v4",
    "deepseek_v32",
    "glm47",
    "kimi_k2",
)

_DSV4_DEFAULT_THINKING = (
    "vLLM 0.33.0's DeepSeekV4Parser thinks by default when chat_template_kwargs name neither "
    "'thinking' nor 'enable_thinking' (test_deepseek_v4.py::TestDelegatingParserLargeDelta::"
    "test_default_thinking_extracts_tool_call_without_think_end asserts it): with no prompt the "
    "plain text is reasoning; this trace_builder version assumes non-thinking. Served behind the "
    "model's chat template (prompt ending in the non-thinking `</think>`) the content is as asserted"
)

# "<test id after the file path>" (or "<id>:<mode>") -> reason, per parser
NOT_FOLLOWED: dict[str, dict[str, str]] = {
    "deepseek_v4": {
        "TestReplay::test_replay[deepseek_v4-content-only]": _DSV4_DEFAULT_THINKING,
        "TestReplay::test_replay[deepseek_v4-empty-tool-block]": _DSV4_DEFAULT_THINKING,
    },
}


def _cases() -> list[Any]:
    return [
        case
        for parser in PARSERS
        for cls in CLASSES
        for case in pinned_cases(
            parser, NOT_FOLLOWED.get(parser), source=f"{SOURCE}::{cls}::"
        )
    ]


@needs_models
@pytest.mark.parametrize(("vec", "mode"), _cases())
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
