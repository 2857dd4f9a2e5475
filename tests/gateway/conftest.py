"""Gateway mode against the mock engine, both served by uvicorn in threads on 127.0.0.1.

The model is the shared Qwen3 folder with the hermes tool parser and the qwen3 reasoning
parser (as `--tool-call-parser hermes --enable-auto-tool-choice --reasoning-parser qwen3`),
or the built-in Qwen3-style model with the same parsers when ../shared is not there.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from gateway_support import Deployment, free_port, serve_in_thread

from tokenfront.api.app import create_app
from tokenfront.config import ModelOptions, ServerSettings
from tokenfront.mock_engine.app import MockEngine, create_mock_app
from tokenfront.mock_engine.script import parse_script
from tokenfront.tokenization.registry import ModelRegistry, ServedModel, load_model

MODELS = Path(os.environ["TOKENFRONT_TEST_MODELS"])

WEATHER_CALL = (
    "<think>\nThe user wants the weather, so I call the tool.\n</think>\n\n"
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
)
DEFAULT_REPLY = "<think>\nA greeting is enough.\n</think>\n\nHello from the mock engine."

SCRIPT = {
    "rules": [
        {"pattern": "weather", "output": WEATHER_CALL},
        {"pattern": "explode", "error": {"status": 503, "message": "engine overloaded"}},
        {"pattern": "teapot", "error": {"status": 418, "message": "short and stout"}},
        {"pattern": "sleepy", "output": "zzz", "token_delay": 3.0},
        {"pattern": "drowsy", "output": "zz", "token_delay": 0.6},
        {"pattern": "long story", "output": "once upon a time " * 400, "token_delay": 0.01},
    ],
    "default": DEFAULT_REPLY,
}


def _model() -> ServedModel:
    folder = MODELS / "qwen3"
    parsers = {
        "tool_call_parser": "hermes",
        "enable_auto_tool_choice": True,
        "reasoning_parser": "qwen3",
    }
    if folder.is_dir():
        return load_model(ModelOptions(model=str(folder), served_model_name=["qwen3"], **parsers))
    return load_model(ModelOptions(**parsers))  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def deployment() -> Iterator[Deployment]:
    model = _model()
    engine = MockEngine(model, parse_script(SCRIPT))
    registry = ModelRegistry([model])
    with serve_in_thread(create_mock_app(engine)) as engine_url:
        gateway = create_app(registry, ServerSettings(engine_url=engine_url))
        # Gives up on the engine after half a second without progress.
        impatient = create_app(registry, ServerSettings(engine_url=engine_url, engine_timeout=0.5))
        # Points at a port nothing listens on.
        orphan = create_app(registry, ServerSettings(engine_url=f"http://127.0.0.1:{free_port()}"))
        with (
            serve_in_thread(gateway) as gateway_url,
            serve_in_thread(impatient) as impatient_url,
            serve_in_thread(orphan) as orphan_url,
        ):
            yield Deployment(model, engine, engine_url, gateway_url, impatient_url, orphan_url)


@pytest.fixture
def anyio_backend() -> str:
    """The event loop for the `anyio`-marked async tests."""
    return "asyncio"
