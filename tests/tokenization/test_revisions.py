"""Which revision each folder is resolved at: `--revision` for the model, `--tokenizer-revision`
(default: the model's) for the tokenizer, as vLLM's ModelConfig picks them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tokenfront.config import ModelOptions
from tokenfront.tokenization import registry

HY4 = Path(__file__).resolve().parents[1] / "models" / "hy4-opensource"


def _resolved(monkeypatch: pytest.MonkeyPatch, **options: Any) -> list[tuple[str, str | None]]:
    calls: list[tuple[str, str | None]] = []
    resolve = registry.resolve_model_dir

    def recorded(model: str, revision: str | None = None) -> Path:
        calls.append((model, revision))
        return resolve(model, revision)

    monkeypatch.setattr(registry, "resolve_model_dir", recorded)
    registry.load_model(ModelOptions(model=str(HY4), served_model_name=["hy"], **options))
    return calls


def test_the_tokenizer_follows_the_model_revision_unless_given_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert _resolved(monkeypatch, revision="r1") == [(str(HY4), "r1")]
    assert _resolved(monkeypatch, revision="r1", tokenizer_revision="t2") == [
        (str(HY4), "r1"),
        (str(HY4), "t2"),
    ]
    assert _resolved(monkeypatch, tokenizer=str(HY4)) == [(str(HY4), None), (str(HY4), None)]
