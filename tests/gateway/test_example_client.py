"""docker/examples/client.py against gateway mode over the demo script of the compose file."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from gateway_support import Deployment, serve_in_thread

from tokenfront.api.app import create_app
from tokenfront.config import ServerSettings
from tokenfront.mock_engine.app import MockEngine, create_mock_app
from tokenfront.mock_engine.script import load_script
from tokenfront.tokenization.registry import ModelRegistry

EXAMPLES = Path(__file__).resolve().parents[2] / "docker" / "examples"


def _client_module():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("example_client", EXAMPLES / "client.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_example_client_against_the_demo_script(
    deployment: Deployment, capsys: pytest.CaptureFixture[str]
) -> None:
    engine = MockEngine(deployment.model, load_script(EXAMPLES / "mock-script.json"))
    with serve_in_thread(create_mock_app(engine)) as engine_url:
        app = create_app(ModelRegistry([deployment.model]), ServerSettings(engine_url=engine_url))
        with serve_in_thread(app) as url:
            client = _client_module()
            plain = client.with_httpx(url, {}, "qwen3")
            assert "mock engine" in plain["content"] and plain["streamed"] == plain["content"]
            sdk = client.with_openai(url, "x", "qwen3")
            assert sdk["tool_calls"] == ["get_weather"]
            assert "sunny in Paris" in sdk["final"]
            assert client.main(["--base-url", url]) == 0
    out = capsys.readouterr().out
    assert "[openai] tool call: get_weather" in out
