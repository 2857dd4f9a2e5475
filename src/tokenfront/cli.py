"""Command line: `tokenfront serve` (vLLM-compatible flags), `tokenfront parsers`."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

from tokenfront import __version__
from tokenfront.config import (
    DEFAULT_MAX_LOGPROBS,
    DEFAULT_MAX_N_SEQUENCES,
    DEFAULT_MAX_REQUEST_BYTES,
    ModelOptions,
    ServerSettings,
)

logger = logging.getLogger("tokenfront")


def _env(name: str, default: Any = None) -> Any:
    """Flag default from `TOKENFRONT_<NAME>` (or vLLM's `VLLM_<NAME>` spelling)."""
    for key in (f"TOKENFRONT_{name}", f"VLLM_{name}"):
        if key in os.environ:
            return os.environ[key]
    return default


def _env_bool(name: str) -> bool:
    return str(_env(name, "")).lower() in ("1", "true", "yes", "on")


def _add_model_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("model")
    g.add_argument("--model", action="append", default=None,
                   help="Model directory or hub id; repeat to serve several models. "
                        "Default: the built-in offline Qwen3 model.")
    g.add_argument("--served-model-name", nargs="+", action="append", default=None,
                   help="Name(s) clients use for the model (one group per --model).")
    g.add_argument("--models-config", default=_env("MODELS_CONFIG"),
                   help="JSON/YAML file with a list of model option objects (same keys as the flags).")
    g.add_argument("--tokenizer", default=_env("TOKENIZER"), help="Tokenizer directory or hub id.")
    g.add_argument("--tokenizer-mode", choices=["auto", "hf", "mistral", "slow"],
                   default=_env("TOKENIZER_MODE", "auto"))
    g.add_argument("--revision", default=_env("REVISION"))
    g.add_argument("--trust-remote-code", action="store_true", default=_env_bool("TRUST_REMOTE_CODE"))
    g.add_argument("--max-model-len", type=int, default=_env("MAX_MODEL_LEN"),
                   help="Context length; default from the model config.")
    g.add_argument("--max-logprobs", type=int, default=int(_env("MAX_LOGPROBS", DEFAULT_MAX_LOGPROBS)))
    g.add_argument("--generation-config", default=_env("GENERATION_CONFIG", "auto"),
                   help="'auto' (model's generation_config.json), 'vllm' (none) or a directory.")
    g = p.add_argument_group("chat template")
    g.add_argument("--chat-template", default=_env("CHAT_TEMPLATE"), help="Jinja template: a file or inline.")
    g.add_argument("--chat-template-content-format", choices=["auto", "string", "openai"],
                   default=_env("CHAT_TEMPLATE_CONTENT_FORMAT", "auto"))
    g.add_argument("--trust-request-chat-template", action="store_true",
                   default=_env_bool("TRUST_REQUEST_CHAT_TEMPLATE"),
                   help="Allow requests to bring their own chat template.")
    g.add_argument("--default-chat-template-kwargs", default=_env("DEFAULT_CHAT_TEMPLATE_KWARGS"),
                   help="JSON object merged under every request's chat_template_kwargs.")
    g = p.add_argument_group("parsers")
    g.add_argument("--tool-call-parser", default=_env("TOOL_CALL_PARSER"),
                   help="Tool-call parser name (see `tokenfront parsers`).")
    g.add_argument("--enable-auto-tool-choice", action="store_true",
                   default=_env_bool("ENABLE_AUTO_TOOL_CHOICE"))
    g.add_argument("--reasoning-parser", default=_env("REASONING_PARSER"),
                   help="Reasoning parser name (see `tokenfront parsers`).")
    g.add_argument("--tool-parser-plugin", default=_env("TOOL_PARSER_PLUGIN"),
                   help="Python file that registers extra parsers.")


def _add_server_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("server")
    g.add_argument("--host", default=_env("HOST", "127.0.0.1"))
    g.add_argument("--port", type=int, default=int(_env("PORT", 8000)))
    g.add_argument("--api-key", nargs="+", default=[k for k in [_env("API_KEY")] if k],
                   help="Require `Authorization: Bearer KEY` on every route but /health.")
    g.add_argument("--root-path", default=_env("ROOT_PATH", ""))
    g.add_argument("--uvicorn-log-level", default=_env("UVICORN_LOG_LEVEL", "info"),
                   choices=["critical", "error", "warning", "info", "debug", "trace"])
    g.add_argument("--disable-uvicorn-access-log", action="store_true",
                   default=_env_bool("DISABLE_UVICORN_ACCESS_LOG"))
    g.add_argument("--max-request-bytes", type=int,
                   default=int(_env("MAX_REQUEST_BYTES", DEFAULT_MAX_REQUEST_BYTES)),
                   help="Reject larger request bodies with 413 before reading them.")
    g.add_argument("--max-n-sequences", type=int,
                   default=int(_env("MAX_N_SEQUENCES", DEFAULT_MAX_N_SEQUENCES)),
                   help="Bound on choices per response and responses per request.")
    g.add_argument("--workers", type=int, default=int(_env("WORKERS", 1)))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tokenfront",
        description="GPU-less render/derender frontend for disaggregated LLM serving "
                    "(wire-compatible with `vllm launch render`).",
    )
    parser.add_argument("--version", action="version", version=f"tokenfront {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="Run the HTTP server.",
                           description="Serve render/derender for one or more models.")
    _add_model_flags(serve)
    _add_server_flags(serve)
    sub.add_parser("parsers", help="List the available tool and reasoning parsers.")
    return parser


def _json_arg(value: str | None, flag: str) -> dict[str, Any] | None:
    if not value:
        return None
    try:
        data = json.loads(value)
    except json.JSONDecodeError as exc:
        raise SystemExit(f"{flag}: invalid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise SystemExit(f"{flag}: expected a JSON object")
    return data


def model_options_from_args(args: argparse.Namespace) -> list[ModelOptions]:
    """One `ModelOptions` per `--model` (or per entry of `--models-config`)."""
    common = dict(
        tokenizer=args.tokenizer,
        tokenizer_mode=args.tokenizer_mode,
        revision=args.revision,
        trust_remote_code=args.trust_remote_code,
        max_model_len=int(args.max_model_len) if args.max_model_len else None,
        max_logprobs=args.max_logprobs,
        generation_config=args.generation_config,
        chat_template=args.chat_template,
        chat_template_content_format=args.chat_template_content_format,
        trust_request_chat_template=args.trust_request_chat_template,
        default_chat_template_kwargs=_json_arg(args.default_chat_template_kwargs,
                                               "--default-chat-template-kwargs"),
        tool_call_parser=args.tool_call_parser,
        enable_auto_tool_choice=args.enable_auto_tool_choice,
        reasoning_parser=args.reasoning_parser,
    )
    options: list[ModelOptions] = []
    if args.models_config:
        options.extend(_load_models_config(args.models_config, common))
    models = args.model or ([] if options else [_env("MODEL")])
    names = args.served_model_name or []
    for i, model in enumerate(models):
        served = names[i] if i < len(names) else []
        options.append(ModelOptions(model=model, served_model_name=list(served), **common))
    return options


def _load_models_config(path: str, common: dict[str, Any]) -> list[ModelOptions]:
    text = Path(path).read_text(encoding="utf-8")
    if path.endswith((".yaml", ".yml")):
        import yaml

        entries = yaml.safe_load(text)
    else:
        entries = json.loads(text)
    if not isinstance(entries, list):
        raise SystemExit(f"--models-config {path}: expected a list of model entries")
    result = []
    for entry in entries:
        values = dict(common)
        values.update({k.replace("-", "_"): v for k, v in entry.items()})
        served = values.pop("served_model_name", None) or []
        if isinstance(served, str):
            served = [served]
        result.append(ModelOptions(served_model_name=list(served), **values))
    return result


def _check_parsers(options: list[ModelOptions], plugin: str | None) -> None:
    from tokenfront.parsers import registry

    if plugin:
        registry.load_plugin_file(plugin)
    for opt in options:
        try:
            if opt.tool_call_parser:
                registry.get_tool_parser(opt.tool_call_parser)
            if opt.reasoning_parser:
                registry.get_reasoning_parser(opt.reasoning_parser)
        except registry.UnknownParserError as exc:
            raise SystemExit(f"error: {exc}") from None


def serve(args: argparse.Namespace) -> int:
    logging.basicConfig(
        level=args.uvicorn_log_level.upper() if args.uvicorn_log_level != "trace" else "DEBUG",
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    options = model_options_from_args(args)
    _check_parsers(options, args.tool_parser_plugin)

    import uvicorn

    from tokenfront.api.app import create_app
    from tokenfront.tokenization.registry import ModelLoadError, ModelRegistry

    settings = ServerSettings(
        host=args.host,
        port=args.port,
        api_key=list(args.api_key or []),
        root_path=args.root_path,
        uvicorn_log_level=args.uvicorn_log_level,
        disable_uvicorn_access_log=args.disable_uvicorn_access_log,
        max_request_bytes=args.max_request_bytes,
        max_n_sequences=args.max_n_sequences,
        workers=args.workers,
    )
    try:
        registry = ModelRegistry.load(options)
    except ModelLoadError as exc:
        raise SystemExit(f"error: {exc}") from None
    app = create_app(registry, settings)
    uvicorn.run(
        app,
        host=settings.host,
        port=settings.port,
        log_level=settings.uvicorn_log_level,
        access_log=not settings.disable_uvicorn_access_log,
        timeout_graceful_shutdown=30,
    )
    return 0


def list_parsers() -> int:
    from tokenfront.parsers import registry

    print("tool call parsers:")
    for name in registry.tool_parser_names():
        print(f"  {name}")
    print("reasoning parsers:")
    for name in registry.reasoning_parser_names():
        print(f"  {name}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "serve":
        return serve(args)
    if args.command == "parsers":
        return list_parsers()
    return 2


if __name__ == "__main__":
    sys.exit(main())
