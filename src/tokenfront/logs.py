"""Logging set-up: human-readable text or one JSON object per line.

Extra fields passed as `logger.info(..., extra={"fields": {...}})` are appended as `key=value`
pairs in text mode and merged into the object in JSON mode, so access logs stay greppable and
machine-readable.
"""

from __future__ import annotations

import json
import logging
import logging.config
import time
from typing import Any

from tokenfront.config import ServerSettings

FORMATS = ("text", "json")
_TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def _fields(record: logging.LogRecord) -> dict[str, Any]:
    fields = getattr(record, "fields", None)
    return fields if isinstance(fields, dict) else {}


class TextFormatter(logging.Formatter):
    def __init__(self) -> None:
        super().__init__(_TEXT_FORMAT)

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        extra = " ".join(f"{k}={_text_value(v)}" for k, v in _fields(record).items())
        return f"{line} {extra}" if extra else line


def _text_value(value: Any) -> str:
    text = str(value)
    return json.dumps(text) if (not text or " " in text or '"' in text) else text


class JSONFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        data.update(_fields(record))
        if record.exc_info:
            data["exc"] = self.formatException(record.exc_info)
        return json.dumps(data, ensure_ascii=False, default=str)


def level_name(uvicorn_level: str) -> str:
    """Python logging level for a `--uvicorn-log-level` value ("trace" is DEBUG)."""
    return "DEBUG" if uvicorn_level.lower() == "trace" else uvicorn_level.upper()


def log_config(settings: ServerSettings) -> dict[str, Any] | None:
    """The `logging.config.dictConfig` dict of these settings: vLLM's logging-config file when one
    is given, else one stderr handler on the root logger at the uvicorn level, tokenfront's own
    loggers at `log_level` when set. None when logging is not to be configured.

    Given to uvicorn too, so every worker process logs the same way.
    """
    if not settings.configure_logging:
        return None
    if settings.logging_config_file:
        return read_logging_config_file(settings.logging_config_file)
    formatter = JSONFormatter if settings.log_format == "json" else TextFormatter
    passthrough = {"handlers": [], "propagate": True}
    loggers: dict[str, Any] = {
        "uvicorn": dict(passthrough),
        "uvicorn.error": dict(passthrough),
        # The request guard writes the access log; uvicorn's own would repeat it.
        "uvicorn.access": {"handlers": [], "propagate": False},
    }
    if settings.log_level:
        loggers["tokenfront"] = {"level": settings.log_level, **passthrough}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"default": {"()": f"{__name__}.{formatter.__name__}"}},
        "handlers": {
            "stderr": {
                "class": "logging.StreamHandler",
                "formatter": "default",
                "stream": "ext://sys.stderr",
            }
        },
        "root": {"handlers": ["stderr"], "level": level_name(settings.uvicorn_log_level)},
        "loggers": loggers,
    }


def read_logging_config_file(path: str) -> dict[str, Any]:
    """A JSON `dictConfig` file (vLLM's `--logging-config.pylogging_config_file`)."""
    try:
        with open(path, encoding="utf-8") as f:
            config = json.load(f)
    except (OSError, ValueError) as exc:
        raise ValueError(f"logging config file {path}: {exc}") from None
    if not isinstance(config, dict):
        raise ValueError(f"logging config file {path}: expected a JSON object")
    return config


def setup_logging(settings: ServerSettings) -> None:
    config = log_config(settings)
    if config is not None:
        logging.config.dictConfig(config)
