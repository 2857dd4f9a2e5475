"""Which revision each folder is resolved at: `--revision` for the model, `--tokenizer-revision`
(default: the model's) for the tokenizer, as vLLM's ModelConfig picks them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tokenfront.config import ModelOptions
from tokenfront.tokenization import registry

HY4 = Path(__file__).resolve().parents[1] / "models" / "hy4-opensource"


def _resolved(monkeypatch: pytest.MonkeyPatch, **options: Any) -> list[tuple[str, str | None]]:
    calls: list[tuple[str, str | None]] = []
    resolve = registry.resolve_model_dir

    def recorded(model: str, revision: str | None = None, token: Any = None) -> Path:
        calls.append((model, revision))
        return resolve(model, revision, token)

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


def test_hf_config_path_names_the_config_the_model_is_served_with(tmp_path: Path) -> None:
    config = json.loads((HY4 / "config.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps({**config, "max_position_embeddings": 1234}))
    served = registry.load_model(ModelOptions(model=str(HY4), served_model_name=["hy"], hf_config_path=str(tmp_path)))
    assert served.max_model_len == 1234
    assert served.tokenizer_path == str(HY4)


def test_hf_token_reaches_the_hub_download(monkeypatch: pytest.MonkeyPatch) -> None:
    import huggingface_hub

    seen: dict[str, Any] = {}

    def download(repo_id: str, revision: str | None = None, token: Any = None) -> str:
        seen.update(repo_id=repo_id, revision=revision, token=token)
        return str(HY4)

    monkeypatch.setattr(huggingface_hub, "snapshot_download", download)
    assert registry.resolve_model_dir("org/not-local", "main", "hf_x") == HY4
    assert seen == {"repo_id": "org/not-local", "revision": "main", "token": "hf_x"}
