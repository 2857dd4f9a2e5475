"""Request modules imported after start-up: not before /health in a serving process, imported
by the warm-up (then the heap is settled) or by the first request that needs them."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tokenfront.api import deferred

MODELS = Path(os.environ["TOKENFRONT_TEST_MODELS"])
QWEN3 = MODELS / "qwen3"


def test_request_modules_are_importable() -> None:
    deferred.load_request_modules()
    for name in deferred.REQUEST_MODULES:
        assert name in sys.modules


def test_warm_up_calls_after_even_when_it_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken() -> None:
        raise ImportError("boom")

    monkeypatch.setattr(deferred, "load_request_modules", broken)
    done = threading.Event()
    interval = sys.getswitchinterval()
    deferred.start_warm_up(done.set).join(10)
    assert done.is_set()
    assert sys.getswitchinterval() == interval


def test_serving_app_is_ready_before_the_request_modules_are_imported() -> None:
    if not QWEN3.is_dir():
        pytest.skip("shared qwen3 model not available")
    # Build the app and run its lifespan start-up without the warm-up thread, as `tokenfront
    # serve` does before /health answers; then answer requests, which import on first use.
    code = f"""
import sys
from fastapi.testclient import TestClient
import tokenfront.api.app as app_module
app_module.start_warm_up = lambda after: None
from tokenfront.config import ModelOptions, ServerSettings
from tokenfront.tokenization.registry import ModelRegistry
from tokenfront.api.deferred import REQUEST_MODULES
registry = ModelRegistry.load([ModelOptions(model={str(QWEN3)!r}, served_model_name=["qwen3"],
    tool_call_parser="hermes", enable_auto_tool_choice=True, reasoning_parser="qwen3")])
app = app_module.create_app(registry, ServerSettings(stream_state_key=["k"]), serving=True)
with TestClient(app) as client:
    assert client.get("/health").status_code == 200
    assert client.get("/v1/models").status_code == 200
    early = sorted(m for m in REQUEST_MODULES if m in sys.modules)
    early += sorted(m for m in ("jinja2", "transformers", "numpy", "PIL") if m in sys.modules)
    r = client.post("/v1/chat/completions/render",
                    json={{"model": "qwen3", "messages": [{{"role": "user", "content": "hi"}}]}})
    assert r.status_code == 200, r.text
    r = client.post("/v1/completions/derender",
                    json={{"model": "qwen3", "generate_responses": [{{"choices": [{{"index": 0,
                    "token_ids": [14990]}}]}}]}})
    assert r.status_code == 200, r.text
    print(early)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_after_the_warm_up_every_model_has_its_prompt_encoder(monkeypatch: pytest.MonkeyPatch) -> None:
    if not QWEN3.is_dir():
        pytest.skip("shared qwen3 model not available")
    from tokenfront.api import app as app_module
    from tokenfront.config import ModelOptions, ServerSettings
    from tokenfront.tokenization.detokenizer import tokenizer_view
    from tokenfront.tokenization.registry import ModelRegistry

    registry = ModelRegistry.load([ModelOptions(model=str(QWEN3), served_model_name=["qwen3"])])
    app = app_module.create_app(registry, ServerSettings(stream_state_key=["k"]))
    monkeypatch.setattr(app_module, "settle_heap", lambda: None)
    view = tokenizer_view(registry.default.tokenizer)
    app._after_warm_up()
    assert view._prompt_encoder is not None and view.prompt_encoder is not None
