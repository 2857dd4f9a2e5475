"""`tokenfront mock-engine`: run the scripted engine (a test double for `vllm serve --tokens-only`)."""

from __future__ import annotations

import argparse
import logging
from typing import Any

logger = logging.getLogger("tokenfront.mock_engine")

DESCRIPTION = (
    "Serve vLLM's token-in/token-out API (POST /inference/v1/generate, "
    "/inference/v1/abort_requests, GET /health) by replaying scripted outputs encoded with the "
    "model's tokenizer. A test double for demos and end-to-end tests; the real engine is "
    "`vllm serve MODEL --tokens-only` on a GPU."
)


def add_mock_engine_command(subparsers: Any) -> argparse.ArgumentParser:
    """Register the `mock-engine` subcommand; `args.handler(args)` runs it."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "mock-engine", help="Run the scripted mock engine (a test double).", description=DESCRIPTION
    )
    p.add_argument("--model", default=None, help="Model folder (default: the built-in Qwen3).")
    p.add_argument("--served-model-name", nargs="+", default=None)
    p.add_argument(
        "--script",
        default=None,
        help='JSON file: {"prompt regex": "output text", ...} or {"rules": [...], "default": ...}.',
    )
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8001)
    p.add_argument(
        "--token-delay", type=float, default=0.0, help="Seconds per generated token (pacing)."
    )
    p.add_argument("--chunk-tokens", type=int, default=1, help="Tokens per streamed chunk.")
    p.add_argument(
        "--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"]
    )
    p.set_defaults(handler=run_mock_engine)
    return p


def build_engine(args: argparse.Namespace) -> Any:
    from tokenfront.config import ModelOptions
    from tokenfront.mock_engine.app import MockEngine
    from tokenfront.mock_engine.script import load_script
    from tokenfront.tokenization.registry import load_model

    options = ModelOptions(model=args.model, served_model_name=list(args.served_model_name or []))
    model = load_model(options)
    return MockEngine(
        model=model,
        script=load_script(args.script),
        token_delay=max(args.token_delay, 0.0),
        chunk_tokens=max(args.chunk_tokens, 1),
    )


def run_mock_engine(args: argparse.Namespace) -> int:
    import uvicorn

    from tokenfront.mock_engine.app import create_mock_app
    from tokenfront.mock_engine.script import ScriptError

    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    try:
        engine = build_engine(args)
    except ScriptError as exc:
        raise SystemExit(f"error: {exc}") from None
    logger.warning("mock engine: scripted test double serving %s", engine.model.name)
    uvicorn.run(create_mock_app(engine), host=args.host, port=args.port, log_level=args.log_level)
    return 0
