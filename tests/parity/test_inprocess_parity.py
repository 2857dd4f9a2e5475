"""Parity with vLLM 0.33.0, replayed in process (no server processes, so the whole corpus fits CI).

Two corpora in the shared parity format, each case its own test:
- the shared public corpus (`../shared/parity/golden-public.jsonl`, its `configs.json`);
- the project's parser corpus (`tests/golden/vllm-parsers.jsonl`, `tests/golden/configs.json`),
  recorded from a real vLLM 0.33.0 by `scripts/record_vllm_golden.py`.
Each config's app is built once from the same CLI arguments `tokenfront serve` gets, and cases go
through the real ASGI stack with Starlette's TestClient; answers are compared with the shared
harness's own normalisation (`paritylib.compare_result`). Skipped with the reason when ../shared
(the model directories and the harness) is absent. Deliberate deviations from vLLM are listed in
`docs/deviations.md` and in `tests/golden/deviations.json` (case ids skipped here, with the reason).
"""

from __future__ import annotations

import functools
import json
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("TOKENFRONT_SHARED", REPO.parent / "shared"))
PARITY = SHARED / "parity"
GOLDEN_DIR = REPO / "tests" / "golden"

CORPORA: list[tuple[str, Path, Path]] = [
    ("public", PARITY / "golden-public.jsonl", PARITY / "configs.json"),
    ("parsers", GOLDEN_DIR / "vllm-parsers.jsonl", GOLDEN_DIR / "configs.json"),
    *[
        (path.stem.removeprefix("vllm-"), path, GOLDEN_DIR / f"configs-{path.stem.removeprefix('vllm-')}.json")
        for path in sorted(GOLDEN_DIR.glob("vllm-*.jsonl"))
        # (the Responses corpus is replayed by tests/render/test_responses.py)
        if path.name not in ("vllm-parsers.jsonl", "vllm-responses.jsonl")
    ],
]

pytestmark = [
    pytest.mark.skipif(
        not (PARITY / "paritylib.py").is_file(),
        reason=f"shared parity material not found at {PARITY} (in-process parity skipped)",
    ),
    pytest.mark.usefixtures("template_clock_on_the_recording_day"),
]


def _paritylib() -> ModuleType:
    if str(PARITY) not in sys.path:
        sys.path.insert(0, str(PARITY))
    import paritylib

    return paritylib


def _deviations() -> dict[str, str]:
    path = GOLDEN_DIR / "deviations.json"
    if not path.is_file() or os.environ.get("TOKENFRONT_PARITY_NO_DEVIATIONS"):
        return {}  # the env var re-checks the listed cases (which ones still differ)
    data: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return data


@functools.cache
def _configs(corpus: str) -> dict[str, Any]:
    configs: dict[str, Any] = _paritylib().load_configs(dict((c, f) for c, _, f in CORPORA)[corpus])
    return configs


def _server_key(cfg: dict[str, Any]) -> str:
    """What the app is built from: configs of different corpora that serve the same model with
    the same flags and environment share one app."""
    return json.dumps([cfg["model"], cfg.get("served_model_name"), cfg.get("args", []),
                       cfg.get("env", {})], sort_keys=True)


def _cases() -> list[Any]:
    if not (PARITY / "paritylib.py").is_file():
        return []
    lib = _paritylib()
    keyed = []
    for corpus, golden, configs_file in CORPORA:
        if not golden.is_file():
            continue
        configs = lib.load_configs(configs_file)
        for case in lib.read_jsonl(golden):
            if case["config"] in configs:
                keyed.append((_server_key(configs[case["config"]]), corpus, case))
    # Grouped by the app they need, so only one app has to be alive at a time.
    keyed.sort(key=lambda item: item[0])
    return [pytest.param(corpus, case, id=case["id"]) for _, corpus, case in keyed]


def _model_dir(model: str) -> Path:
    """Config model paths are relative to ../shared, or to the repository with a `repo:` prefix.

    A repository model dir with a sibling `<name>-src/build.py` is built on demand from that
    compact source (its `build(out_dir)` is a no-op when the dir is up to date).
    """
    if model.startswith("repo:"):
        path = REPO / model.removeprefix("repo:")
        builder = path.with_name(path.name + "-src") / "build.py"
        if builder.is_file():
            _load_builder(builder).build(path)
        return path
    return SHARED / model


def _load_builder(path: Path) -> ModuleType:
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"_model_build_{path.parent.name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_open: dict[str, Any] = {}


def _client(corpus: str, config_name: str) -> Any:
    """The TestClient of this config, closing the previous config's (a loaded model is ~100 MB)."""
    key = _server_key(_configs(corpus)[config_name])
    if key not in _open:
        for client in _open.values():
            client.__exit__(None, None, None)
        _open.clear()
        _open[key] = _new_client(corpus, config_name)
    return _open[key]


def _new_client(corpus: str, config_name: str) -> Any:
    """A TestClient over the app `tokenfront serve` builds for this config."""
    from starlette.testclient import TestClient

    from tokenfront import cli

    cfg = _configs(corpus)[config_name]
    argv = [
        "--model",
        str(_model_dir(cfg["model"])),
        "--served-model-name",
        cfg.get("served_model_name", Path(cfg["model"]).name),
        *cfg.get("args", []),
    ]
    app = cli.app_from_argv(argv)
    client = TestClient(app, raise_server_exceptions=False)
    client.__enter__()
    return client


@pytest.mark.parametrize(("corpus", "case"), _cases())
def test_matches_vllm(corpus: str, case: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    reason = _deviations().get(case["id"])
    if reason:
        pytest.skip(f"deliberate deviation from vLLM 0.33.0: {reason}")
    from tokenfront.parsers import registry

    config = _configs(corpus)[case["config"]]
    args = config.get("args", [])
    for name, value in config.get("env", {}).items():  # VLLM_SYSTEM_START_DATE, VLLM_ENFORCE_STRICT_TOOL_CALLING
        monkeypatch.setenv(name, value)
    for flag, known in (
        ("--tool-call-parser", registry.tool_parser_names),
        ("--reasoning-parser", registry.reasoning_parser_names),
    ):
        if flag in args and args[args.index(flag) + 1] not in known():
            pytest.skip(f"{flag} {args[args.index(flag) + 1]} is not implemented")
    lib = _paritylib()
    client = _client(corpus, case["config"])
    got = lib.run_case(client, str(client.base_url).rstrip("/"), case)
    diffs = lib.compare_result(case, case, got)
    assert not diffs, "\n".join(diffs)
