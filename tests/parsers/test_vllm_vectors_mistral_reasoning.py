"""Regression vectors for the mistral reasoning parser (vLLM parser-test vectors, issue 8).

From tests/parser/mistral/test_reasoning.py (`vllm-project/vllm`): v13 vectors run on
tests/models/mistral-v13 (`[THINK]` / `[/THINK]` special tokens), the v11 `<think>`-as-text vectors
on tests/models/mistral-v11-tekken read by mistral-common (a v11 tekken tokenizer has grammar
support, so `<think>` / `</think>` are text markers), one-shot and streamed one token per delta.

`test_vllm_vector_on_pre_v11_tokenizer` runs them all on the shared pre-v11 `mistral` model too,
which has neither `[THINK]` nor grammar support: vLLM 0.33.0 turns reasoning off there, tokenfront
reads either marker as text (docs/deviations.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import MODELS, cases, needs_models, problems

ALL = {vec["source"].split("::")[-1] for vec in load_vectors("mistral", kind="reasoning")}
V11_TEKKEN = Path(__file__).resolve().parents[1] / "models" / "mistral-v11-tekken"


@needs_models
@pytest.mark.parametrize(("vec", "mode"), cases("mistral", ALL, kind="reasoning"))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []


@needs_models
@pytest.mark.parametrize(("vec", "mode"), cases("mistral", ALL, kind="reasoning"))
def test_vllm_vector_on_pre_v11_tokenizer(vec: dict[str, Any], mode: str) -> None:
    assert problems(dict(vec, test_model=str(MODELS / "mistral")), mode) == []


def test_v11_tekken_has_grammar_support() -> None:
    from tokenfront.tokenization.mistral import load_mistral_tokenizer

    tok = load_mistral_tokenizer(V11_TEKKEN)
    assert tok.version == 11 and tok.supports_grammar
    assert "[THINK]" not in tok.get_vocab()


def test_pre_v11_tekken_has_no_grammar_support() -> None:
    from tokenfront.tokenization.mistral import load_mistral_tokenizer

    shared = Path(__file__).resolve().parents[3] / "shared" / "models" / "mistral"
    if not shared.is_dir():
        pytest.skip("../shared/models is absent")
    assert not load_mistral_tokenizer(shared).supports_grammar
