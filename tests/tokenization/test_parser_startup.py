"""Start-up refusal of parsers the model's tokenizer cannot serve (vLLM's
`ParserManager.validate_parser_tokenizer`), against vLLM 0.33.0's recorded answers
(tests/golden/vllm-parser-startup.json: every parser name alone on every model folder)."""

from __future__ import annotations

import dataclasses
import functools
import json
from pathlib import Path

import pytest

from tokenfront.config import ModelOptions
from tokenfront.tokenization.registry import ModelLoadError, ServedModel, build_parsers, load_model

ROOT = Path(__file__).resolve().parents[2]
FACTS = json.loads((ROOT / "tests" / "golden" / "vllm-parser-startup.json").read_text(encoding="utf-8"))


def _folder(model: str) -> Path:
    return ROOT / model.removeprefix("repo:") if model.startswith("repo:") else ROOT.parent / "shared" / model


@functools.cache
def _served(model: str) -> ServedModel:
    folder = _folder(model)
    if not (folder / "tokenizer_config.json").is_file() and not any(folder.glob("tekken*.json")):
        pytest.skip(f"{folder} is not built here")
    return load_model(ModelOptions(model=str(folder)))


def _refusal(model: str, kind: str, name: str) -> str | None:
    served = _served(model)
    selected = {"tool_call_parser": name, "enable_auto_tool_choice": True} if kind == "tool" else {"reasoning_parser": name}
    options = dataclasses.replace(served.options, **selected)
    try:
        build_parsers(options, served.tokenizer, served.model_type, served.name)
    except ModelLoadError as exc:
        return str(exc)
    return None


def _reason(message: str) -> str:
    """What a refusal says after naming the flags and the model (vLLM's flags on a gpt-oss model
    differ: its recording composed each parser alone, without gpt-oss's default reasoning parser)."""
    reason = message.split(" cannot be used with the tokenizer of ", 1)[-1].split(": ", 1)[-1]
    # The parser classes Harmony names are each implementation's own.
    return reason.split(", got ", 1)[0] if reason.startswith("Harmony requires ") else reason


@pytest.mark.parametrize("model", FACTS["models"])
def test_parsers_refused_at_start_up_where_vllm_refuses_them(model: str) -> None:
    refused = FACTS["refused"].get(model, {})
    wrong = []
    for kind, names in FACTS["parsers"].items():
        for name in names:
            vllm = refused.get(f"{kind}:{name}")
            got = _refusal(model, kind, name)
            if (vllm is None) != (got is None) or (vllm and got and _reason(vllm) != _reason(got)):
                wrong.append((kind, name, vllm, got))
    assert wrong == []


def test_refusal_names_the_flags_and_the_model_as_vllm_does() -> None:
    expected = FACTS["refused"]["models/qwen3"]["tool:hy_v3"].removeprefix("TypeError: ")
    assert _refusal("models/qwen3", "tool", "hy_v3") == expected.format(model=str(_folder("models/qwen3")))
