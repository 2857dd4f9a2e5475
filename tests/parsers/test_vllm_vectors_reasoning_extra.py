"""vLLM reasoning-parser tests transcribed separately (issue 8, group `reasoning-extra`),
pinned through the served pipeline.

Vectors from `vllm-project/vllm` (tests/parsers/vllm_vectors/<parser>.reasoning-extra.json):

* tests/reasoning/test_issue_35221.py (`qwen3`: reasoning cut off by max_tokens stays reasoning),
* tests/reasoning/test_base_thinking_reasoning_parser.py (the `<think>` base class, through
  `deepseek_r1`, the served parser that is exactly that class with `<think>`/`</think>`),
* tests/reasoning/test_identity_reasoning_parser.py (the identity parser, through `deepseek_v3`
  with `thinking=False`),
* tests/reasoning/test_mistral_reasoning_parser.py (`mistral`, the old location of
  tests/parser/mistral/test_reasoning.py).

One-shot and streamed one token per delta by `vllm_vectors_run`, each reasoning parser alone.
`NOT_FOLLOWED` lists the vectors tokenfront does not satisfy, with the reason.
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_run import needs_models, problems, source_cases

_NO_THINK = (
    "text before [/THINK] without [THINK] read as reasoning: the superseding "
    "tests/parser/mistral/test_reasoning.py asserts, like vLLM 0.33.0, that unmarked text is "
    "content (v13_no_reasoning, v13_stray_think_end) and [/THINK] without [THINK] is dropped"
)
_EMPTY_REASONING = (
    "reasoning '' asserted: tests/parser/mistral/test_reasoning.py asserts None for the same "
    "input (v13_stray_think_end, v13_empty), as vLLM 0.33.0 gives"
)
_NEW_LINE = (
    "text before [THINK] read as reasoning (streaming) / dropped (one-shot): "
    "tests/parser/mistral/test_reasoning.py::v13_leading_content asserts, like vLLM 0.33.0, that "
    "it stays content ('Before\\n[THINK]r[/THINK]\\nAfter' -> content 'Before\\n\\nAfter')"
)

# "<test id after the file path>" (or "<test id>:<mode>") -> reason, per parser.
NOT_FOLLOWED: dict[str, dict[str, str]] = {
    "mistral": {
        "test_mistral_reasoning[simple_reasoning]": _NO_THINK,
        "test_mistral_reasoning[simple_reasoning_streaming]": _NO_THINK,
        "test_mistral_reasoning[complete_reasoning]": _NO_THINK,
        "test_mistral_reasoning[complete_reasoning_streaming]": _NO_THINK,
        "test_mistral_reasoning[no_content_token]": _NO_THINK,
        "test_mistral_reasoning[no_reasoning_token_streaming]": _NO_THINK,
        "test_mistral_reasoning[multiple_lines]": _NO_THINK,
        "test_mistral_reasoning[multiple_lines_streaming]": _NO_THINK,
        "test_mistral_reasoning[shortest_streaming]": _EMPTY_REASONING,
        "test_mistral_reasoning[shortest_with_think]": _EMPTY_REASONING,
        "test_mistral_reasoning[empty]": _EMPTY_REASONING,
        "test_mistral_reasoning[new_line]": _NEW_LINE,
        "test_mistral_reasoning[new_line_streaming]": _NEW_LINE,
    },
}

SOURCES = {
    "qwen3": "tests/reasoning/test_issue_35221.py",
    "deepseek_r1": "tests/reasoning/test_base_thinking_reasoning_parser.py",
    "deepseek_v3": "tests/reasoning/test_identity_reasoning_parser.py",
    "mistral": "tests/reasoning/test_mistral_reasoning_parser.py",
}

CASES = source_cases(SOURCES, NOT_FOLLOWED)


@needs_models
@pytest.mark.parametrize(("vec", "mode"), CASES)
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
