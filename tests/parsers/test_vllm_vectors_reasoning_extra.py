"""vLLM reasoning-parser tests transcribed separately (issue 8, group `reasoning-extra`),
pinned through the served pipeline.

Vectors from `vllm-project/vllm` (tests/parsers/vllm_vectors/<parser>.reasoning-extra.json):

* tests/reasoning/test_issue_35221.py (`qwen3`: reasoning cut off by max_tokens stays reasoning),
* tests/reasoning/test_base_thinking_reasoning_parser.py (the `<think>` base class, through
  `deepseek_r1`, the served parser that is exactly that class with `<think>`/`</think>`),
* tests/reasoning/test_identity_reasoning_parser.py (the identity parser, through `deepseek_v3`
  with `thinking=False`),
* tests/reasoning/test_mistral_reasoning_parser.py (`mistral`; the version that imports
  `vllm.tokenizers.mistral`, as 0.33.0 has it).

One-shot and streamed one token per delta by `vllm_vectors_run`, each reasoning parser alone.
`NOT_FOLLOWED` lists the vectors tokenfront does not satisfy, with the reason.
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_run import needs_models, problems, source_cases

# "<test id after the file path>" (or "<test id>:<mode>") -> reason, per parser.
NOT_FOLLOWED: dict[str, dict[str, str]] = {
    "mistral": {
        "test_mistral_reasoning[empty]": (
            "an empty output (content '' asserted on the parser alone): a served derender "
            "answers 400 for empty token_ids, as vLLM 0.33.0 does (pub-qwen3-plain-errors-006)"
        ),
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
