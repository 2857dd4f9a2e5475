"""Starting the HTTP server: one process, or several uvicorn workers sharing the port.

One worker: the models are loaded here and the app object is handed to uvicorn.
Several workers: the models are loaded once here to fail fast on a bad flag, then the settings
travel to each worker process in `TOKENFRONT_SERVE_CONFIG` (JSON), where
`tokenfront.api.app:create_app_from_env` loads them again; Prometheus switches to its
multi-process mode so `/metrics` sums all workers.

SIGTERM or SIGINT: uvicorn stops accepting connections, lets in-flight requests finish for up to
`--shutdown-timeout` seconds, then exits 0.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import shutil
import signal
import tempfile
from dataclasses import asdict, fields
from typing import Any

from tokenfront.config import ModelOptions, ServerSettings
from tokenfront.logs import log_config, setup_logging

logger = logging.getLogger("tokenfront")

CONFIG_ENV = "TOKENFRONT_SERVE_CONFIG"
APP_FACTORY = "tokenfront.api.app:create_app_from_env"
# Extra room over the header limit for h11's whole incomplete-request buffer (request line etc.).
_H11_SLACK = 8 * 1024


def dump_config(
    options: list[ModelOptions], settings: ServerSettings, parser_plugins: list[str] | None = None
) -> str:
    return json.dumps(
        {
            "models": [asdict(o) for o in options],
            "settings": asdict(settings),
            "parser_plugins": parser_plugins or [],
        }
    )


def load_config(text: str) -> tuple[list[ModelOptions], ServerSettings, list[str]]:
    data = json.loads(text)
    options = [ModelOptions(**_known(ModelOptions, m)) for m in data["models"]]
    settings = ServerSettings(**_known(ServerSettings, data["settings"]))
    return options, settings, list(data.get("parser_plugins") or [])


def _known(cls: type, values: dict[str, Any]) -> dict[str, Any]:
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in values.items() if k in names}


def load_from_env() -> tuple[list[ModelOptions], ServerSettings]:
    """Settings for a worker process; with no `TOKENFRONT_SERVE_CONFIG`, the built-in model."""
    text = os.environ.get(CONFIG_ENV)
    if not text:
        return [ModelOptions()], ServerSettings()
    options, settings, plugins = load_config(text)
    setup_logging(settings)
    if plugins:
        from tokenfront.parsers import registry

        for plugin in plugins:
            registry.load_plugin_file(plugin)
    return options, settings


def uvicorn_kwargs(settings: ServerSettings) -> dict[str, Any]:
    kwargs: dict[str, Any] = {
        "host": settings.host,
        "port": settings.port,
        "log_level": settings.uvicorn_log_level,
        "log_config": log_config(settings),
        # The request guard writes the access log (structured, with request ids).
        "access_log": False,
        "timeout_graceful_shutdown": settings.shutdown_timeout,
        "timeout_keep_alive": settings.timeout_keep_alive,
        "h11_max_incomplete_event_size": (
            settings.h11_max_incomplete_event_size or settings.max_header_bytes + _H11_SLACK
        ),
        "root_path": settings.root_path,
    }
    # passed only when set: uvicorn's own defaults otherwise (a Unix socket replaces host/port)
    for name in ("uds", "ssl_keyfile", "ssl_certfile", "ssl_ca_certs", "ssl_cert_reqs", "ssl_ciphers"):
        value = getattr(settings, name)
        if value:
            kwargs[name] = value
    if settings.enable_ssl_refresh and settings.ssl_certfile:
        from tokenfront.tls_refresh import refreshing_context

        kwargs["ssl_context_factory"] = refreshing_context
    return kwargs


def run(
    options: list[ModelOptions], settings: ServerSettings, parser_plugins: list[str] | None = None
) -> int:
    """Load the models and serve until SIGTERM/SIGINT; the process exit code."""
    import uvicorn

    from tokenfront.api.app import create_app
    from tokenfront.tokenization.registry import ModelLoadError, ModelRegistry

    try:
        registry = ModelRegistry.load(options)
    except ModelLoadError as exc:
        logger.error("%s", exc)
        return 1
    names = [n for m in registry.models for n in m.names]
    where = f"unix:{settings.uds}" if settings.uds else f"{settings.host}:{settings.port}"
    scheme = "https" if settings.ssl_certfile else "http"
    logger.info("serving %s on %s://%s (workers=%d)", ", ".join(names), scheme, where, settings.workers)
    if settings.workers <= 1:
        app = create_app(registry, settings, serving=True)
        _exit_cleanly_on_stop_signals()
        uvicorn.run(app, **uvicorn_kwargs(settings))
        return 0
    del registry  # each worker loads its own copy
    from tokenfront.api.gc_policy import resume_collection

    resume_collection()  # paused by `tokenfront serve`; this process only supervises
    return _run_workers(options, settings, parser_plugins or [])


def _exit_cleanly_on_stop_signals() -> None:
    """After uvicorn's graceful shutdown it re-raises the stop signal; exit 0 instead of dying."""

    def stop(signum: int, _frame: object) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)


def _run_workers(
    options: list[ModelOptions], settings: ServerSettings, parser_plugins: list[str]
) -> int:
    import uvicorn

    owned_dir = None
    if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        owned_dir = tempfile.mkdtemp(prefix="tokenfront-metrics-")
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = owned_dir
    if not settings.stream_state_key:
        # Any worker may receive the next chunk of a stream: they must share one signing key.
        settings.stream_state_key = [secrets.token_hex(32)]
        logger.info("no --stream-state-key given: one random key shared by this server's workers")
    os.environ[CONFIG_ENV] = dump_config(options, settings, parser_plugins)
    try:
        uvicorn.run(APP_FACTORY, factory=True, workers=settings.workers, **uvicorn_kwargs(settings))
    finally:
        if owned_dir:
            os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)
            shutil.rmtree(owned_dir, ignore_errors=True)
    return 0
