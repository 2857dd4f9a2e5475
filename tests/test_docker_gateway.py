"""docker/: the gateway-mode compose services, the example client and the k8s manifests."""

from __future__ import annotations

import py_compile
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

DOCKER = Path(__file__).resolve().parents[1] / "docker"
COMPOSE = DOCKER / "compose.yaml"


def _services() -> dict[str, Any]:
    services: dict[str, Any] = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))["services"]
    return services


def _engine_url(service: dict[str, Any]) -> str:
    command = service["command"]
    return str(command[command.index("--engine-url") + 1])


def test_engines_and_their_profiles() -> None:
    services = _services()
    mock, engine = services["mock-engine"], services["engine"]
    assert mock["profiles"] == ["demo"] and engine["profiles"] == ["gpu"]
    assert mock["entrypoint"] == ["tokenfront", "mock-engine"]
    assert "--tokens-only" in engine["command"]
    assert engine["deploy"]["resources"]["reservations"]["devices"][0]["capabilities"] == ["gpu"]
    for service in (mock, engine):
        assert "/health" in " ".join(service["healthcheck"]["test"])
    script = mock["volumes"][0].split(":")[0]
    assert (DOCKER / script).resolve().is_file()


@pytest.mark.parametrize(
    ("gateway", "engine"), [("gateway-demo", "mock-engine"), ("gateway", "engine")]
)
def test_gateways_wait_for_their_engine(gateway: str, engine: str) -> None:
    services = _services()
    service = services[gateway]
    assert service["profiles"] == services[engine]["profiles"]
    assert _engine_url(service) == f"http://{engine}:8000"
    assert service["depends_on"][engine]["condition"] == "service_healthy"
    assert "/health" in " ".join(service["healthcheck"]["test"])
    assert "tokenfront" in services and "profiles" not in services["tokenfront"]


def _compose() -> list[str] | None:
    if shutil.which("docker"):
        probe = subprocess.run(["docker", "compose", "version"], capture_output=True, timeout=30)
        if probe.returncode == 0:
            return ["docker", "compose"]
    return None


@pytest.mark.parametrize("profile", ["demo", "gpu"])
def test_compose_config_per_profile(profile: str) -> None:
    cmd = _compose()
    if cmd is None:
        pytest.skip("no working `docker compose` client")
    done = subprocess.run(
        [*cmd, "-f", str(COMPOSE), "--profile", profile, "config", "--quiet"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr


def test_k8s_manifests() -> None:
    docs = {}
    for path in sorted((DOCKER / "k8s").glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            docs[doc["kind"]] = doc
    assert {"Deployment", "Service", "HorizontalPodAutoscaler", "Kustomization"} <= set(docs)
    deployment = docs["Deployment"]
    name = deployment["metadata"]["name"]
    assert docs["HorizontalPodAutoscaler"]["spec"]["scaleTargetRef"]["name"] == name
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert docs["Service"]["spec"]["selector"] == labels
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    env = {e["name"]: e for e in container["env"]}
    assert env["TOKENFRONT_ENGINE_URL"]["value"].startswith("http://")
    assert "secretKeyRef" in env["TOKENFRONT_STREAM_STATE_KEY"]["valueFrom"]
    assert container["readinessProbe"]["httpGet"]["path"] == "/health"
    assert container["resources"]["requests"]["cpu"]
    listed = set(docs["Kustomization"]["resources"])
    assert listed == {p.name for p in (DOCKER / "k8s").glob("*.yaml")} - {"kustomization.yaml"}


def test_example_client_compiles() -> None:
    py_compile.compile(str(DOCKER / "examples" / "client.py"), doraise=True)
