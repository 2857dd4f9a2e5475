"""`tokenfront serve`: flags, environment variables, the worker factory and a real server process."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tokenfront import cli, launch
from tokenfront.config import ModelOptions, ServerSettings


def parse(*argv: str) -> argparse.Namespace:
    return cli.build_parser().parse_args(cli.normalize_argv(["serve", *argv]))


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in list(os.environ):
        if key.startswith("TOKENFRONT_") and key != "TOKENFRONT_CACHE_DIR":
            monkeypatch.delenv(key)
    for key in ("VLLM_API_KEY", "VLLM_HTTP_MAX_REQUEST_BODY_SIZE", "VLLM_MAX_N_SEQUENCES",
                "VLLM_ENFORCE_STRICT_TOOL_CALLING"):
        monkeypatch.delenv(key, raising=False)


@pytest.fixture(scope="module")
def cache_dir(builtin_cache: Path) -> Path:
    return builtin_cache


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A word-level tokenizer folder that loads in milliseconds."""
    import json

    from tokenizers import Tokenizer, models, pre_tokenizers

    path = tmp_path_factory.mktemp("tiny-model")
    vocab = {w: i for i, w in enumerate(["<unk>", "</s>", "hello", "world"])}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.save(str(path / "tokenizer.json"))
    files = {
        "tokenizer_config.json": {
            "tokenizer_class": "PreTrainedTokenizerFast",
            "eos_token": "</s>",
        },
        "config.json": {"model_type": "llama", "max_position_embeddings": 128},
    }
    for name, data in files.items():
        (path / name).write_text(json.dumps(data))
    return path


# ---------------------------------------------------------------- parsing


def test_help_explains_itself(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        cli.main(["serve", "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for text in (
        "built-in offline Qwen3",
        "TOKENFRONT_<FLAG>",
        "VLLM_API_KEY",
        "--api-key",
        "--stream-state-key",
        "--workers",
        "SIGTERM",
        "/metrics",
        "examples:",
    ):
        assert text in out, text


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["--version"])
    assert capsys.readouterr().out.startswith("tokenfront ")


def test_defaults() -> None:
    settings = cli.server_settings_from_args(parse())
    assert (settings.host, settings.port, settings.workers) == ("127.0.0.1", 8000, 1)
    assert settings.api_key == [] and settings.stream_state_key == []
    assert cli.model_options_from_args(parse()) == [ModelOptions()]


def test_vllm_spellings() -> None:
    args = parse("./m", "--max_model_len=32k", "--served-model-name", "a", "b", "--seed", "1")
    (opt,) = cli.model_options_from_args(args)
    assert opt.model == "./m" and opt.served_model_name == ["a", "b"]
    assert opt.max_model_len == 32000
    assert args.ignored_seed == "1"
    assert (
        cli.server_settings_from_args(parse("--max-request-bytes", "1M")).max_request_bytes == 2**20
    )
    assert parse("--enforce-eager", "--dtype", "bfloat16").ignored_enforce_eager is True


def test_engine_flags_of_a_vllm_command_line_are_accepted_and_ignored(
    caplog: pytest.LogCaptureFixture,
) -> None:
    args = parse(
        "./m", "-tp", "2", "--compilation-config.mode", "3", "--disable-prefix-caching",
        "--speculative_config", "{}", "--no-enforce-eager", "--return-tokens-as-token-ids",
    )  # fmt: skip
    assert args.ignored_tensor_parallel_size == "2"
    assert args.ignored_compilation_config == '{"mode": 3}'
    assert args.ignored_enable_prefix_caching is True  # either spelling of the switch
    with caplog.at_level("WARNING", logger="tokenfront"):
        cli._warn_ignored(args)
    assert "--tensor-parallel-size" in caplog.text and "--speculative-config" in caplog.text
    with pytest.raises(SystemExit):
        parse("./m", "--tool-server", "demo")  # changes answers: refused, not ignored
    several = parse("./m", "--cudagraph-capture-sizes", "1", "2", "4", "--lora-modules", "a=/x", "--port", "9")
    assert several.ignored_cudagraph_capture_sizes == ["1", "2", "4"]
    # remote configuration code is never run here (config.json is read as data)
    assert parse("./m", "--code-revision", "v2").ignored_code_revision == "v2"
    assert several.ignored_lora_modules == ["a=/x"] and several.port == 9


def test_a_json_flag_set_key_by_key_is_one_object_as_in_vllm() -> None:
    args = parse(
        "./m", "--hf-overrides.max_position_embeddings", "4k", "--hf-overrides.text_config.x=1",
        "--override_generation_config.stop+", "a,b", "--override-generation-config.stop+", "c",
        "--override-generation-config.temperature", "0.5", "--hf-overrides.name", "n.1",
    )  # fmt: skip
    assert json.loads(args.hf_overrides) == {
        "max_position_embeddings": 4000, "text_config": {"x": 1}, "name": "n.1",
    }  # fmt: skip
    assert json.loads(args.override_generation_config) == {"stop": ["a", "b", "c"], "temperature": 0.5}
    # the folded object comes last, so it replaces a whole object given on the command line
    args = parse("./m", "--hf-overrides.a", "1", "--hf-overrides", '{"b": 2}')
    assert json.loads(args.hf_overrides) == {"a": 1}
    with pytest.raises(SystemExit):
        parse("./m", "--hf-overrides.a")


def test_max_model_len_auto_and_the_sliding_window_switch() -> None:
    for auto in ("auto", "-1"):
        assert cli.model_options_from_args(parse("./m", "--max-model-len", auto))[0].max_model_len == -1
    assert cli.model_options_from_args(parse("./m", "--disable-sliding-window"))[0].disable_sliding_window
    args = parse("./m", "--disable-sliding-window", "--enable-sliding-window")
    assert not cli.model_options_from_args(args)[0].disable_sliding_window
    with pytest.raises(SystemExit):
        parse("./m", "--max-model-len", "0")


def test_structured_outputs_config_gives_the_reasoning_parser_the_flag_overrides() -> None:
    (opt,) = cli.model_options_from_args(parse("./m", "--structured-outputs-config.reasoning_parser", "qwen3"))
    assert opt.reasoning_parser == "qwen3"
    args = parse("./m", "--structured-outputs-config", '{"reasoning_parser": "qwen3"}',
                 "--reasoning-parser", "deepseek_r1")  # fmt: skip
    assert cli.model_options_from_args(args)[0].reasoning_parser == "deepseek_r1"
    engine_only = parse("./m", "--structured-outputs-config.backend", "guidance",
                        "--structured-outputs-config.disable_additional_properties", "true")  # fmt: skip
    assert cli.model_options_from_args(engine_only)[0].reasoning_parser is None


@pytest.mark.parametrize(
    "config",
    [
        {"reasoning": "qwen3"},
        {"backend": "fastest"},
        {"disable_any_whitespace": True},  # the auto backend: vLLM refuses it
        {"backend": "xgrammar", "disable_additional_properties": True},
        {"enable_in_reasoning": "yes"},
    ],
)
def test_a_structured_outputs_config_vllm_refuses_stops_the_start(config: dict[str, object]) -> None:
    with pytest.raises(SystemExit):
        cli.model_options_from_args(parse("./m", "--structured-outputs-config", json.dumps(config)))


def test_parser_plugin_files_of_both_flags_are_imported_once() -> None:
    args = parse("--tool-parser-plugin", "p.py", "--reasoning-parser-plugin", "p.py")
    assert cli.parser_plugins(args) == ["p.py"]
    args = parse("--structured-outputs-config.reasoning_parser_plugin", "r.py", "--tool-parser-plugin", "t.py")
    assert cli.parser_plugins(args) == ["t.py", "r.py"]
    assert cli.parser_plugins(parse("--tool-parser-plugin", "a")) == []  # vLLM skips such paths


def test_a_vllm_config_file_gives_flags_the_command_line_overrides(tmp_path: Path) -> None:
    config = tmp_path / "serve.yaml"
    config.write_text(
        "port: 8100\nmax_model_len: 4k\nenable-auto-tool-choice: true\n"
        "tool-call-parser: hermes\nstrict-tool-calling: false\ntrust-remote-code: false\n"
        "served-model-name: [a, b]\ncompilation-config: {mode: 3}\n",
        encoding="utf-8",
    )
    args = parse("./m", f"--config={config}", "--port", "9000")
    (opt,) = cli.model_options_from_args(args)
    assert args.port == 9000  # the command line wins
    assert (opt.model, opt.served_model_name, opt.max_model_len) == ("./m", ["a", "b"], 4000)
    assert opt.enable_auto_tool_choice and opt.tool_call_parser == "hermes"
    assert opt.strict_tool_calling is False  # false: the flag's --no- form
    assert args.ignored_compilation_config == '{"mode": 3}'
    for bad in (["--config"], ["--config", "x.json"], ["--config", str(config)] * 2):
        with pytest.raises(SystemExit):
            parse(*bad)


def test_hf_overrides_replace_values_and_update_sub_configurations() -> None:
    from tokenfront.tokenization.registry import ModelLoadError, apply_hf_overrides

    config = {"max_position_embeddings": 40960, "rope_scaling": {"factor": 2.0, "type": "x"},
              "text_config": {"rope_scaling": {"factor": 2.0, "type": "x"}, "vocab_size": 5}}  # fmt: skip
    overrides = {"max_position_embeddings": 8192, "rope_scaling": {"factor": 4.0},
                 "text_config": {"rope_scaling": {"factor": 4.0}}}  # fmt: skip
    (opt,) = cli.model_options_from_args(parse("./m", "--hf-overrides", json.dumps(overrides)))
    assert apply_hf_overrides(config, opt.hf_overrides or {}) == {
        "max_position_embeddings": 8192,
        "rope_scaling": {"factor": 4.0},  # a value: replaced
        "text_config": {"rope_scaling": {"factor": 4.0, "type": "x"}, "vocab_size": 5},
    }
    for identity in ({"architectures": ["X"]}, {"text_config": {"model_type": "x"}}):
        with pytest.raises(ModelLoadError):  # refused when the model loads, at start
            apply_hf_overrides(config, identity)


def test_vllm_render_flags_reach_the_model_options(monkeypatch: pytest.MonkeyPatch) -> None:
    (opt,) = cli.model_options_from_args(parse("./m", "--exclude-tools-when-tool-choice-none"))
    assert opt.exclude_tools_when_tool_choice_none and not opt.trust_request_mm_kwargs
    monkeypatch.setenv("TOKENFRONT_TRUST_REQUEST_MM_KWARGS", "1")
    (opt,) = cli.model_options_from_args(parse("./m"))
    assert opt.trust_request_mm_kwargs and not opt.exclude_tools_when_tool_choice_none
    assert opt.cohere_format == "cmd4"
    (opt,) = cli.model_options_from_args(
        parse("./m", "--no-trust-request-mm-kwargs", "--cohere-format", "cmd3")
    )
    assert not opt.trust_request_mm_kwargs and opt.cohere_format == "cmd3"


@pytest.mark.parametrize(
    ("text", "value"),
    [("7", 7), ("2k", 2000), ("2K", 2048), ("1.5m", 1_500_000), ("3G", 3 * 2**30)],
)
def test_human_int(text: str, value: int) -> None:
    assert cli.human_int(text) == value


@pytest.mark.parametrize("text", ["x", "1.5K", "-3", "1.5"])
def test_human_int_rejects(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        cli.human_int(text)


def test_several_models() -> None:
    args = parse(
        "--model", "a", "--model", "b", "--served-model-name", "x", "--served-model-name", "y"
    )
    options = cli.model_options_from_args(args)
    assert [(o.model, o.served_model_name) for o in options] == [("a", ["x"]), ("b", ["y"])]


def test_env_vars(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOKENFRONT_STREAM_STATE_KEY", "k1, k2,")
    monkeypatch.setenv("TOKENFRONT_API_KEY", "a,b")
    monkeypatch.setenv("TOKENFRONT_PORT", "9001")
    monkeypatch.setenv("TOKENFRONT_WORKERS", "3")
    monkeypatch.setenv("TOKENFRONT_TOOL_CALL_PARSER", "hermes")
    monkeypatch.setenv("VLLM_HTTP_MAX_REQUEST_BODY_SIZE", "0")
    args = parse()
    settings = cli.server_settings_from_args(args)
    assert settings.stream_state_key == ["k1", "k2"]
    assert settings.api_key == ["a", "b"]
    assert (settings.port, settings.workers) == (9001, 3)
    assert settings.max_request_bytes == sys.maxsize  # 0 = no limit
    assert cli.model_options_from_args(args)[0].tool_call_parser == "hermes"


def test_vllm_api_key_env_and_flag_precedence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VLLM_API_KEY", "from-vllm")
    assert cli.server_settings_from_args(parse()).api_key == ["from-vllm"]
    monkeypatch.setenv("TOKENFRONT_API_KEY", "ours")
    assert cli.server_settings_from_args(parse()).api_key == ["ours"]
    assert cli.server_settings_from_args(parse("--api-key", "flag")).api_key == ["flag"]
    flagged = parse("--stream-state-key", "s1", "s2")
    assert cli.server_settings_from_args(flagged).stream_state_key == ["s1", "s2"]


@pytest.mark.parametrize(
    "argv",
    [
        ["--enable-auto-tool-choice"],
        ["--ssl-keyfile", "k.pem"],
        ["--port", "70000"],
    ],
)
def test_invalid_combinations_exit(argv: list[str]) -> None:
    args = parse(*argv)
    with pytest.raises(SystemExit):
        cli._validate(args, cli.model_options_from_args(args))


def test_chat_template_that_looks_like_a_missing_path_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="looks like a path"):
        cli.model_options_from_args(parse("--chat-template", "tool_use"))
    template = tmp_path / "t.jinja"
    template.write_text("{{ messages }}")
    for value in (str(template), "{{ messages[0].content }}"):
        assert cli.model_options_from_args(parse("--chat-template", value))[0].chat_template == value


@pytest.mark.parametrize("argv", [["--workers", "0"], ["--shutdown-timeout", "-1"]])
def test_bad_values_rejected_by_parser(argv: list[str]) -> None:
    with pytest.raises(SystemExit):
        parse(*argv)


def test_cors_lists() -> None:
    settings = cli.server_settings_from_args(parse("--allowed-origins", '["https://a.test"]'))
    assert settings.allowed_origins == ["https://a.test"]


# ---------------------------------------------------------------- worker factory


def test_config_round_trip() -> None:
    options = [ModelOptions(model="m", served_model_name=["n"], tool_call_parser="hermes")]
    settings = ServerSettings(api_key=["k"], stream_state_key=["s"], workers=2)
    loaded = launch.load_config(launch.dump_config(options, settings, ["tools.py", "reasoning.py"]))
    assert loaded == (options, settings, ["tools.py", "reasoning.py"])


def test_factory_reads_settings_from_env(tiny_model: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from fastapi.testclient import TestClient

    from tokenfront.api.app import create_app_from_env

    config = launch.dump_config(
        [ModelOptions(model=str(tiny_model), served_model_name=["tiny"])],
        ServerSettings(api_key=["k"]),
    )
    monkeypatch.setenv(launch.CONFIG_ENV, config)
    client = TestClient(create_app_from_env())
    assert client.get("/v1/models").status_code == 401
    models = client.get("/v1/models", headers={"Authorization": "Bearer k"}).json()
    assert [m["id"] for m in models["data"]] == ["tiny"]


def test_worker_settings_share_one_stream_key(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, str] = {}

    def fake_run(app: str, **kwargs: object) -> None:
        seen["app"] = app
        seen["config"] = os.environ[launch.CONFIG_ENV]
        seen["multiproc"] = os.environ["PROMETHEUS_MULTIPROC_DIR"]
        assert kwargs["workers"] == 2 and kwargs["factory"] is True

    import uvicorn

    monkeypatch.setattr(uvicorn, "run", fake_run)
    for key in ("PROMETHEUS_MULTIPROC_DIR", launch.CONFIG_ENV):
        monkeypatch.setenv(key, "")  # so that monkeypatch restores the original state
        monkeypatch.delenv(key)
    assert launch._run_workers([ModelOptions()], ServerSettings(workers=2), None) == 0
    _, settings, _ = launch.load_config(seen["config"])
    assert seen["app"] == launch.APP_FACTORY
    assert len(settings.stream_state_key) == 1 and len(settings.stream_state_key[0]) == 64
    assert not Path(seen["multiproc"]).exists()  # removed at exit


# ---------------------------------------------------------------- the real process


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def server_env(cache_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TOKENFRONT_", "VLLM_"))}
    env["TOKENFRONT_CACHE_DIR"] = str(cache_dir)
    return env


def start_server(env: dict[str, str], *argv: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    cmd = [sys.executable, "-m", "tokenfront", "serve", "--host", "127.0.0.1", "--port", str(port)]
    proc = subprocess.Popen(
        [*cmd, *argv], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180  # generous: a loaded 2-core machine starts slowly
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            out = proc.stdout.read().decode() if proc.stdout else ""
            raise AssertionError(f"server exited early ({proc.returncode}):\n{out}")
        try:
            if httpx.get(url + "/health", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise AssertionError("server did not become healthy in 180 s")


def stop_server(proc: subprocess.Popen[bytes]) -> tuple[int, str]:
    proc.send_signal(signal.SIGTERM)
    return wait_server(proc)


def wait_server(proc: subprocess.Popen[bytes]) -> tuple[int, str]:
    """Wait for an already signalled server to exit (a second SIGTERM during interpreter
    teardown would kill it with the default action)."""
    try:
        out, _ = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
    return proc.returncode, out.decode()


@pytest.fixture
def running(server_env: dict[str, str]) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    proc, url = start_server(server_env, "--api-key", "k", "--log-format", "json")
    try:
        yield proc, url
    finally:
        if proc.poll() is None:
            stop_server(proc)


def test_real_server_without_model_serves_builtin(
    running: tuple[subprocess.Popen[bytes], str],
) -> None:
    proc, url = running
    auth = {"Authorization": "Bearer k"}
    models = httpx.get(url + "/v1/models", headers=auth, timeout=10).json()
    assert [m["id"] for m in models["data"]] == ["qwen3"]
    assert models["data"][0]["max_model_len"] == 40960
    assert httpx.get(url + "/v1/models", timeout=10).status_code == 401
    big = httpx.post(
        url + "/v1/completions/render",
        headers={**auth, "content-type": "application/json", "x-big": "a" * 70_000},
        content=b"{}",
        timeout=10,
    )
    assert big.status_code in (400, 431)  # uvicorn or the guard, depending on the parser
    assert "tokenfront_http_requests_total" in httpx.get(url + "/metrics", headers=auth).text
    drained = _sigterm_during_slow_request(proc, url, auth)
    code, out = wait_server(proc)
    assert code == 0, out
    assert drained is not None and drained.status_code == 200, out
    assert drained.json()["count"] > 100_000
    assert '"logger": "tokenfront.access"' in out and '"status": 401' in out


def _in_flight(url: str, auth: dict[str, str]) -> float:
    text = httpx.get(url + "/metrics", headers=auth, timeout=10).text
    line = next(x for x in text.splitlines() if x.startswith("tokenfront_http_requests_in_flight"))
    return float(line.rsplit(" ", 1)[1])


def _sigterm_during_slow_request(
    proc: subprocess.Popen[bytes], url: str, auth: dict[str, str]
) -> httpx.Response | None:
    """SIGTERM while a long /tokenize is in flight; the request must still be answered."""
    import threading

    result: dict[str, httpx.Response] = {}
    body = {"model": "qwen3", "prompt": "drain me, please. " * 60_000}

    def call() -> None:
        result["r"] = httpx.post(url + "/tokenize", json=body, headers=auth, timeout=120)

    thread = threading.Thread(target=call)
    thread.start()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and "r" not in result:
        if _in_flight(url, auth) >= 2:  # the /metrics call itself and the /tokenize
            proc.send_signal(signal.SIGTERM)
            break
        time.sleep(0.02)
    thread.join(120)
    return result.get("r")


def test_real_server_two_workers(server_env: dict[str, str], tiny_model: Path) -> None:
    proc, url = start_server(
        server_env, str(tiny_model), "--workers", "2", "--disable-uvicorn-access-log"
    )
    try:
        for _ in range(4):
            assert httpx.get(url + "/v1/models", timeout=10).status_code == 200
        text = httpx.get(url + "/metrics", timeout=10).text
        line = next(
            x
            for x in text.splitlines()
            if x.startswith("tokenfront_http_requests_total") and 'endpoint="/v1/models"' in x
        )
        assert float(line.rsplit(" ", 1)[1]) == 4.0  # summed over both workers
    finally:
        code, out = stop_server(proc)
    assert code == 0, out


def test_real_server_on_a_unix_socket_skips_access_lines_of_quiet_paths(
    server_env: dict[str, str], tiny_model: Path, tmp_path: Path
) -> None:
    sock = tmp_path / "tf.sock"
    cmd = [sys.executable, "-m", "tokenfront", "serve", str(tiny_model), "--uds", str(sock),
           "--disable-access-log-for-endpoints", "/health, /metrics", "--log-format", "json"]  # fmt: skip
    proc = subprocess.Popen(cmd, env=server_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        with httpx.Client(transport=httpx.HTTPTransport(uds=str(sock)), timeout=1) as client:
            deadline = time.monotonic() + 180
            while time.monotonic() < deadline and proc.poll() is None:
                try:
                    if client.get("http://tf/health").status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.2)
            assert client.get("http://tf/v1/models").status_code == 200
            assert client.get("http://tf/metrics").status_code == 200
    finally:
        code, out = stop_server(proc)
    assert code == 0, out
    access = [line for line in out.splitlines() if '"tokenfront.access"' in line]
    assert any('"/v1/models"' in line for line in access), out
    assert not any('"/health"' in line or '"/metrics"' in line for line in access), out


def test_tls_and_socket_settings_reach_uvicorn() -> None:
    from tokenfront.launch import uvicorn_kwargs

    args = parse(
        "--uds", "/tmp/x.sock", "--ssl-keyfile", "k.pem", "--ssl-certfile", "c.pem",
        "--ssl-ca-certs", "ca.pem", "--ssl-cert-reqs", "2", "--ssl-ciphers", "ECDHE-RSA-AES256-GCM-SHA384",
    )  # fmt: skip
    kwargs = uvicorn_kwargs(cli.server_settings_from_args(args))
    assert kwargs["uds"] == "/tmp/x.sock"
    assert (kwargs["ssl_ca_certs"], kwargs["ssl_cert_reqs"]) == ("ca.pem", 2)
    assert kwargs["ssl_ciphers"] == "ECDHE-RSA-AES256-GCM-SHA384"
    assert "ssl_ca_certs" not in uvicorn_kwargs(cli.server_settings_from_args(parse()))


def test_h11_limits_reach_uvicorn_and_the_guard() -> None:
    from tokenfront.launch import uvicorn_kwargs

    settings = cli.server_settings_from_args(
        parse("--h11-max-incomplete-event-size", "1m", "--h11-max-header-count", "64")
    )
    assert uvicorn_kwargs(settings)["h11_max_incomplete_event_size"] == 1_000_000
    assert settings.max_header_count == 64
    default = uvicorn_kwargs(cli.server_settings_from_args(parse("--max-header-bytes", "1000")))
    assert default["h11_max_incomplete_event_size"] > 1000  # room for the header limit's 431
    with pytest.raises(SystemExit):
        parse("--h11-max-header-count", "0")


def test_fingerprint_flags_reach_the_settings() -> None:
    settings = cli.server_settings_from_args(parse("--fingerprint-mode", "custom", "--fingerprint-value", "v1"))
    assert (settings.fingerprint_mode, settings.fingerprint_value) == ("custom", "v1")
    assert cli.server_settings_from_args(parse()).fingerprint_mode == "full"
    with pytest.raises(SystemExit):
        parse("--fingerprint-mode", "loud")


def test_bad_model_fails_fast(server_env: dict[str, str], tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "tokenfront", "serve", "--model", str(tmp_path / "missing")]
    done = subprocess.run(cmd, env=server_env, capture_output=True, timeout=60)
    assert done.returncode != 0
    assert b"cannot find model" in done.stderr


def test_strict_tool_calling_follows_vllms_variable_and_the_flag(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def strict(*argv: str) -> bool:
        return cli.model_options_from_args(parse(*argv))[0].strict_tool_calling

    assert strict() is True and strict("--no-strict-tool-calling") is False
    monkeypatch.setenv("VLLM_ENFORCE_STRICT_TOOL_CALLING", "0")
    assert strict() is False and strict("--strict-tool-calling") is True
    monkeypatch.setenv("VLLM_ENFORCE_STRICT_TOOL_CALLING", "True")
    assert strict() is True
    # vLLM's envs.py accepts only "true" / "1": "yes" turns strict calling off there too.
    monkeypatch.setenv("VLLM_ENFORCE_STRICT_TOOL_CALLING", "yes")
    assert strict() is False
    monkeypatch.setenv("TOKENFRONT_STRICT_TOOL_CALLING", "yes")
    assert strict() is True


def test_every_flag_reads_its_env_var(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOKENFRONT_TRUST_REMOTE_CODE", "yes")
    monkeypatch.setenv("TOKENFRONT_MAX_MODEL_LEN", "4K")
    monkeypatch.setenv("TOKENFRONT_ALLOWED_ORIGINS", '["https://a.test"]')
    monkeypatch.setenv("TOKENFRONT_LOG_FORMAT", "json")
    args = parse()
    assert args.trust_remote_code is True and args.max_model_len == 4096
    assert args.allowed_origins == ["https://a.test"] and args.log_format == "json"
    assert parse("--log-format", "text").log_format == "text"


def test_bad_env_value_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOKENFRONT_PORT", "eighty")
    with pytest.raises(SystemExit, match="TOKENFRONT_PORT"):
        parse()


def _self_signed(directory: Path, name: str) -> tuple[Path, Path]:
    key, cert = directory / f"{name}.key", directory / f"{name}.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", f"/CN={name}", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return key, cert


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
def test_enable_ssl_refresh_serves_a_rotated_certificate(
    server_env: dict[str, str], tiny_model: Path, tmp_path: Path
) -> None:
    import ssl

    key_a, cert_a = _self_signed(tmp_path, "first")
    key_b, cert_b = _self_signed(tmp_path, "second")
    key, cert = tmp_path / "server.key", tmp_path / "server.pem"
    shutil.copy(key_a, key)
    shutil.copy(cert_a, cert)
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tokenfront", "serve", str(tiny_model), "--host", "127.0.0.1",
         "--port", str(port), "--ssl-keyfile", str(key), "--ssl-certfile", str(cert),
         "--enable-ssl-refresh"],
        env=server_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip

    def served() -> str:
        return ssl.get_server_certificate(("127.0.0.1", port), timeout=2)

    def wait_for(expected: str) -> bool:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert proc.poll() is None, proc.stdout.read().decode() if proc.stdout else ""
            try:
                if served().strip() == expected.strip():
                    return True
            except OSError:
                pass
            time.sleep(0.2)
        return False

    try:
        assert wait_for(cert_a.read_text())
        shutil.copy(key_b, key)
        shutil.copy(cert_b, cert)
        assert wait_for(cert_b.read_text())
        assert httpx.get(f"https://127.0.0.1:{port}/health", verify=False).status_code == 200
    finally:
        code, out = stop_server(proc)
    assert "reloaded the TLS certificate chain" in out


def test_middleware_flag_repeats_and_a_bad_path_stops_the_start() -> None:
    args = parse("--middleware", "a.b", "--middleware", "c.d")
    assert cli.server_settings_from_args(args).middleware == ["a.b", "c.d"]
    with pytest.raises(SystemExit, match="--middleware"):
        cli._validate(args, cli.model_options_from_args(args))
    good = parse("--middleware", "starlette.middleware.gzip.GZipMiddleware")
    cli._validate(good, cli.model_options_from_args(good))
