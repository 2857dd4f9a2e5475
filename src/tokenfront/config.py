"""Server and per-model settings, filled from CLI flags, env vars or a models config file."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

TokenizerMode = Literal["auto", "hf", "mistral", "slow", "deepseek_v32", "deepseek_v4", "deepseek_v41", "kimi_k3"]
ContentFormat = Literal["auto", "string", "openai"]

# vLLM's VLLM_MAX_N_SEQUENCES default.
DEFAULT_MAX_N_SEQUENCES = 16384
# vLLM's ModelConfig.max_logprobs default.
DEFAULT_MAX_LOGPROBS = 20
DEFAULT_MAX_REQUEST_BYTES = 32 * 1024 * 1024
# Total size of the request line's headers (names + values) before a 431 answer.
DEFAULT_MAX_HEADER_BYTES = 64 * 1024
# vLLM's --h11-max-header-count default: more request headers get a 431.
DEFAULT_MAX_HEADER_COUNT = 256
# Seconds SIGTERM waits for in-flight requests before closing connections.
DEFAULT_SHUTDOWN_TIMEOUT = 30.0
# Gateway mode: seconds an engine call may go without progress, and the engine pool size.
DEFAULT_ENGINE_TIMEOUT = 600.0
DEFAULT_ENGINE_MAX_CONNECTIONS = 512
# `--anthropic-disabled-thinking-effort` values (vLLM's): "auto" or a reasoning effort.
DISABLED_THINKING_EFFORT_CHOICES = ("auto", "none", "low", "medium", "high", "xhigh", "max")


@dataclass
class ModelOptions:
    """Everything needed to load and serve one model."""

    model: str | None = None
    served_model_name: list[str] = field(default_factory=list)
    tokenizer: str | None = None
    tokenizer_mode: TokenizerMode = "auto"
    revision: str | None = None
    # vLLM's --tokenizer-revision: the tokenizer's hub revision (default: `revision`).
    tokenizer_revision: str | None = None
    # vLLM's --hf-config-path: the folder (or hub id) whose config.json describes the model.
    hf_config_path: str | None = None
    # vLLM's --hf-token: a hub token, or True for the one `hf auth login` stored.
    hf_token: str | bool | None = None
    # vLLM's --hf-overrides: config.json values replaced (sub-configurations updated).
    hf_overrides: dict[str, Any] | None = None
    trust_remote_code: bool = False
    max_model_len: int | None = None
    # vLLM's --disable-sliding-window: the context length is capped at the config's sliding window.
    disable_sliding_window: bool = False
    generation_config: str = "auto"
    # vLLM's --override-generation-config: sampling defaults set over the generation config's.
    override_generation_config: dict[str, Any] | None = None
    chat_template: str | None = None
    chat_template_content_format: ContentFormat = "auto"
    trust_request_chat_template: bool = False
    # vLLM's --exclude-tools-when-tool-choice-none: a tool_choice "none" request's tools are
    # left out of the prompt (the parse context keeps them).
    exclude_tools_when_tool_choice_none: bool = False
    # vLLM's --trust-request-mm-kwargs: requests may carry mm_processor_kwargs / media_io_kwargs.
    trust_request_mm_kwargs: bool = False
    default_chat_template_kwargs: dict[str, Any] | None = None
    reasoning_effort_map: dict[str, str] | None = None
    # vLLM's --cohere-format: a default chat template kwarg of every model (Cohere renderers
    # read it: cmd3 / cmd4).
    cohere_format: str = "cmd4"
    # The reasoning_effort of a `/v1/messages/render` request with thinking disabled;
    # "auto" probes the chat template once ("low" when it ignores or refuses "none").
    anthropic_disabled_thinking_effort: str = "auto"
    tool_strict_level: str | None = None
    # vLLM's VLLM_ENFORCE_STRICT_TOOL_CALLING: tool calls constrained by the parser's structural
    # tag; off, tool_choice required / named force JSON instead for those parsers.
    strict_tool_calling: bool = True
    tool_call_parser: str | None = None
    enable_auto_tool_choice: bool = False
    reasoning_parser: str | None = None
    max_logprobs: int = DEFAULT_MAX_LOGPROBS
    # `--limit-mm-per-prompt`: items per modality, e.g. {"image": 2} (vLLM's default is 999).
    limit_mm_per_prompt: dict[str, Any] | None = None
    # vLLM's --language-model-only: a multimodal model takes text only (every limit above is 0).
    language_model_only: bool = False

    @property
    def names(self) -> list[str]:
        if self.served_model_name:
            return list(self.served_model_name)
        return [self.model or "qwen3"]


@dataclass
class ServerSettings:
    """Process-wide settings."""

    host: str = "127.0.0.1"
    port: int = 8000
    api_key: list[str] = field(default_factory=list)
    root_path: str = ""
    uvicorn_log_level: str = "info"
    disable_uvicorn_access_log: bool = False
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES
    max_n_sequences: int = DEFAULT_MAX_N_SEQUENCES
    stream_state_key: list[str] = field(default_factory=list)
    engine_url: str | None = None
    engine_timeout: float = DEFAULT_ENGINE_TIMEOUT
    engine_max_connections: int = DEFAULT_ENGINE_MAX_CONNECTIONS
    # Gateway answers' system_fingerprint: vLLM's --fingerprint-mode full / hash / custom / none.
    fingerprint_mode: str = "full"
    fingerprint_value: str | None = None
    # Gateway streams: seconds without an event before an SSE keep-alive comment (0: none).
    sse_keep_alive_interval: float = 0
    workers: int = 1
    max_header_bytes: int = DEFAULT_MAX_HEADER_BYTES
    max_header_count: int = DEFAULT_MAX_HEADER_COUNT
    # vLLM's --h11-max-incomplete-event-size: h11's buffer for a request's head (None: room for
    # --max-header-bytes).
    h11_max_incomplete_event_size: int | None = None
    shutdown_timeout: float = DEFAULT_SHUTDOWN_TIMEOUT
    log_format: str = "text"
    # vLLM's --log-level: tokenfront's own loggers (None: the uvicorn level, like the rest).
    log_level: str | None = None
    # vLLM's --logging-config: configure_logging false leaves Python logging alone; a
    # pylogging_config_file (JSON dictConfig) replaces tokenfront's set-up.
    configure_logging: bool = True
    logging_config_file: str | None = None
    enable_request_id_headers: bool = False
    timeout_keep_alive: int = 5
    ssl_keyfile: str | None = None
    ssl_certfile: str | None = None
    ssl_ca_certs: str | None = None
    ssl_cert_reqs: int = 0  # ssl.CERT_NONE
    ssl_ciphers: str | None = None
    # vLLM's --enable-ssl-refresh: reload the certificate files when they change.
    enable_ssl_refresh: bool = False
    # A Unix domain socket to serve on instead of host / port.
    uds: str | None = None
    # Paths whose requests write no access-log line.
    access_log_excluded_paths: list[str] = field(default_factory=list)
    # vLLM's --middleware: import paths of ASGI middleware classes / http middleware functions.
    middleware: list[str] = field(default_factory=list)
    allowed_origins: list[str] = field(default_factory=lambda: ["*"])
    allowed_methods: list[str] = field(default_factory=lambda: ["*"])
    allowed_headers: list[str] = field(default_factory=lambda: ["*"])
    allow_credentials: bool = False
    disable_fastapi_docs: bool = False
    # vLLM's --enable-tokenizer-info-endpoint: GET /tokenizer_info.
    enable_tokenizer_info_endpoint: bool = False
