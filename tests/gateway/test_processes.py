"""`tokenfront mock-engine` and `tokenfront serve --engine-url` as real processes.

Starting two processes that each load a tokenizer takes 20 s to well over a minute on a
busy machine, so this file runs only with TOKENFRONT_PROCESS_TESTS=1; the in-process
end-to-end tests (test_openai_sdk.py) cover the same paths.  The flag parsing is always tested.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest
from gateway_support import free_port

from tokenfront import cli

MODELS = Path(os.environ["TOKENFRONT_TEST_MODELS"])
TOKENFRONT = [sys.executable, "-m", "tokenfront"]
SLOW = pytest.mark.skipif(
    os.environ.get("TOKENFRONT_PROCESS_TESTS") != "1",
    reason="real-process test; set TOKENFRONT_PROCESS_TESTS=1 to run it",
)


def test_flags_reach_the_settings() -> None:
    args = cli.build_parser().parse_args(
        ["serve", "--engine-url", "http://e:8001", "--engine-timeout", "2.5",
         "--engine-max-connections", "3"]
    )  # fmt: skip
    settings = cli.server_settings_from_args(args)
    assert settings.engine_url == "http://e:8001"
    assert (settings.engine_timeout, settings.engine_max_connections) == (2.5, 3)
    assert (
        cli.server_settings_from_args(cli.build_parser().parse_args(["serve"])).engine_url is None
    )
    mock = cli.build_parser().parse_args(["mock-engine", "--port", "9", "--token-delay", "0.1"])
    assert mock.command == "mock-engine" and mock.port == 9 and callable(mock.handler)


def _wait_healthy(url: str, proc: subprocess.Popen[bytes], seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"{url} exited with {proc.returncode}")
        try:
            if httpx.get(url + "/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"{url} did not become healthy")


@pytest.fixture(scope="module")
def processes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    model = MODELS / "qwen3"
    model_args = ["--model", str(model)] if model.is_dir() else []
    script = tmp_path_factory.mktemp("script") / "script.json"
    script.write_text(json.dumps({"capital": "<think>\nEasy.\n</think>\n\nParis."}))
    engine_port, gateway_port = free_port(), free_port()
    engine = subprocess.Popen(
        [*TOKENFRONT, "mock-engine", *model_args, "--served-model-name", "qwen3",
         "--script", str(script), "--host", "127.0.0.1", "--port", str(engine_port),
         "--log-level", "warning"],
    )  # fmt: skip
    gateway = subprocess.Popen(
        [*TOKENFRONT, "serve", *model_args, "--served-model-name", "qwen3",
         "--reasoning-parser", "qwen3", "--host", "127.0.0.1", "--port", str(gateway_port),
         "--engine-url", f"http://127.0.0.1:{engine_port}", "--engine-timeout", "30",
         "--engine-max-connections", "8", "--uvicorn-log-level", "warning"],
    )  # fmt: skip
    try:
        _wait_healthy(f"http://127.0.0.1:{engine_port}", engine)
        _wait_healthy(f"http://127.0.0.1:{gateway_port}", gateway)
        yield f"http://127.0.0.1:{gateway_port}"
    finally:
        for proc in (gateway, engine):
            proc.send_signal(signal.SIGTERM)
        for proc in (gateway, engine):
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()


@SLOW
def test_chat_through_real_processes(processes: str) -> None:
    sdk = openai.OpenAI(base_url=processes + "/v1", api_key="x", max_retries=0)
    messages = [{"role": "user", "content": "What is the capital of France?"}]
    resp = sdk.chat.completions.create(model="qwen3", messages=messages)
    assert resp.choices[0].message.content.strip() == "Paris."
    assert resp.choices[0].message.reasoning.strip() == "Easy."
    chunks = list(sdk.chat.completions.create(model="qwen3", messages=messages, stream=True))
    assert "".join(c.choices[0].delta.content or "" for c in chunks).strip() == "Paris."
