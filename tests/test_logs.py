"""Logging set-up from vLLM's logging flags (`--log-level`, `--logging-config`, `--log-config-file`)."""

from __future__ import annotations

import json
import logging
import logging.config
from pathlib import Path

import pytest

from tokenfront import cli
from tokenfront.config import ServerSettings
from tokenfront.logs import log_config


def settings(*argv: str) -> ServerSettings:
    args = cli.build_parser().parse_args(cli.normalize_argv(["serve", *argv]))
    return cli.server_settings_from_args(args)


@pytest.fixture(autouse=True)
def no_logging_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("VLLM_LOGGING_LEVEL", "VLLM_CONFIGURE_LOGGING", "VLLM_LOGGING_CONFIG_PATH",
                "TOKENFRONT_LOG_LEVEL", "TOKENFRONT_LOG_FORMAT", "TOKENFRONT_LOGGING_CONFIG"):
        monkeypatch.delenv(key, raising=False)


@pytest.fixture
def restore_logging() -> object:
    saved = {name: logging.getLogger(name).level for name in ("", "tokenfront")}
    yield
    for name, level in saved.items():
        logging.getLogger(name).setLevel(level)


def test_log_level_sets_tokenfront_loggers_apart_from_the_uvicorn_level(restore_logging: object) -> None:
    config = log_config(settings("--log-level", "debug", "--uvicorn-log-level", "warning"))
    assert config is not None
    logging.config.dictConfig(config)
    assert logging.getLogger("tokenfront.render").getEffectiveLevel() == logging.DEBUG
    assert logging.getLogger("uvicorn.error").getEffectiveLevel() == logging.WARNING


def test_without_log_level_our_loggers_follow_the_uvicorn_level() -> None:
    config = log_config(settings("--uvicorn-log-level", "error"))
    assert config is not None and "tokenfront" not in config["loggers"]
    assert config["root"]["level"] == "ERROR"


def test_logging_config_keys_and_their_overriding_flags() -> None:
    s = settings("--logging-config", '{"log_level": "WARNING", "formatter": "json"}')
    assert (s.log_level, s.log_format) == ("WARNING", "json")
    s = settings("--logging-config.log_level", "ERROR", "--log-level", "INFO", "--log-format", "text",
                 "--logging-config.formatter", "json")  # fmt: skip
    assert (s.log_level, s.log_format) == ("INFO", "text")


def test_the_vllm_environment_variables_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VLLM_LOGGING_LEVEL", "debug")
    monkeypatch.setenv("VLLM_CONFIGURE_LOGGING", "0")
    s = settings()
    assert s.log_level == "DEBUG" and s.configure_logging is False


def test_configure_logging_false_leaves_python_logging_alone() -> None:
    s = settings("--logging-config.configure_logging", "false")
    assert s.configure_logging is False and log_config(s) is None


def test_a_logging_config_file_replaces_tokenfronts_set_up(tmp_path: Path) -> None:
    own = {"version": 1, "root": {"level": "CRITICAL"}}
    path = tmp_path / "logging.json"
    path.write_text(json.dumps(own))
    assert log_config(settings("--logging-config.pylogging_config_file", str(path))) == own
    assert log_config(settings("--log-config-file", str(path))) == own


@pytest.mark.parametrize(
    "argv",
    [
        ("--logging-config", '{"level": "DEBUG"}'),
        ("--logging-config.log_level", "LOUD"),
        ("--logging-config.formatter", "xml"),
        ("--logging-config.configure_logging", "sometimes"),
        ("--log-config-file", "/nonexistent/logging.json"),
        ("--log-level", "LOUD"),
    ],
)
def test_bad_logging_settings_stop_the_start(argv: tuple[str, ...]) -> None:
    with pytest.raises(SystemExit):
        settings(*argv)
