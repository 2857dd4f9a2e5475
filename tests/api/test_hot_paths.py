"""The hot render/derender routes answered straight from ASGI match the FastAPI routes byte for
byte (a request with an `Origin` header still takes the FastAPI path, for CORS)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tokenfront.api import hot_paths
from tokenfront.api.app import create_app
from tokenfront.config import ModelOptions, ServerSettings
from tokenfront.tokenization.registry import ModelRegistry, load_model

MODELS = Path(os.environ["TOKENFRONT_TEST_MODELS"])
ORIGIN = {"Origin": "http://example.test"}

CASES: list[tuple[str, Any]] = [
    (
        "/v1/chat/completions/render",
        {"model": "qwen3", "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 5},
    ),
    ("/v1/completions/render", {"model": "qwen3", "prompt": ["a b", "c"], "max_tokens": 3}),
    (
        "/v1/chat/completions/derender",
        {
            "generate_response": {
                "request_id": "r1",
                "choices": [{"index": 0, "token_ids": [9707, 151645]}],
            }
        },
    ),
    (
        "/v1/completions/derender",
        {"generate_response": {"request_id": "r2", "choices": [{"index": 0, "token_ids": [9707]}]}},
    ),
    ("/v1/chat/completions/render", {"model": "qwen3"}),  # validation 400
    ("/v1/completions/render", {"model": "nope", "prompt": "x"}),  # unknown model 404
    ("/v1/chat/completions/derender", {"generate_response": {"choices": "x"}}),
]


@pytest.fixture(scope="module")
def client() -> TestClient:
    path = MODELS / "qwen3"
    if not path.is_dir():
        pytest.skip("shared qwen3 model not available")
    model = load_model(ModelOptions(model=str(path), served_model_name=["qwen3"]))
    app = create_app(ModelRegistry([model]), ServerSettings(stream_state_key=["k"]))
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


def _normalised(data: Any) -> Any:
    """Responses carry fresh ids and timestamps; drop them before comparing."""
    if isinstance(data, dict):
        return {
            k: _normalised(v)
            for k, v in data.items()
            if k not in ("created", "request_id", "id") or not isinstance(v, (str, int))
        }
    if isinstance(data, list):
        return [_normalised(v) for v in data]
    return data


@pytest.mark.parametrize(("path", "body"), CASES)
def test_hot_path_answers_like_the_fastapi_route(client, monkeypatch, path, body) -> None:
    taken: list[str] = []
    original = hot_paths.run_cpu_sized

    async def spy(size, fn, *args):  # type: ignore[no-untyped-def]
        taken.append(fn.__name__)
        return await original(size, fn, *args)

    monkeypatch.setattr(hot_paths, "run_cpu_sized", spy)
    hot = client.post(path, json=body)
    routed = client.post(path, json=body, headers=ORIGIN)
    assert hot.status_code == routed.status_code
    assert hot.headers["content-type"] == routed.headers["content-type"] == "application/json"
    assert _normalised(hot.json()) == _normalised(routed.json())
    if hot.status_code == 200 or "generate_response" not in body:
        assert taken[:1] == [hot_paths.HOT_ROUTES[path].handler.__name__]


def test_hot_path_refuses_other_media_types_like_the_route(client) -> None:
    path = "/v1/completions/render"
    hot = client.post(path, content=b"{}", headers={"content-type": "text/plain"})
    routed = client.post(path, content=b"{}", headers={"content-type": "text/plain", **ORIGIN})
    assert hot.status_code == routed.status_code == 400
    assert hot.json() == routed.json()


def test_hot_path_bad_json_is_the_routes_400(client) -> None:
    path = "/v1/chat/completions/derender"
    headers = {"content-type": "application/json"}
    hot = client.post(path, content=b"{nope", headers=headers)
    routed = client.post(path, content=b"{nope", headers={**headers, **ORIGIN})
    assert hot.status_code == routed.status_code == 400
    assert hot.json() == routed.json()


def _count(text: str, endpoint: str) -> float:
    for line in text.splitlines():
        if line.startswith("tokenfront_http_requests_total{") and (
            f'endpoint="{endpoint}"' in line and 'status="200"' in line
        ):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_hot_path_requests_are_labelled_by_route_in_metrics(client) -> None:
    path, body = CASES[1]
    before = _count(client.get("/metrics").text, path)
    client.post(path, json=body)
    assert _count(client.get("/metrics").text, path) == before + 1


def test_get_on_a_hot_path_is_fastapis_405(client) -> None:
    assert client.get("/v1/completions/render").status_code == 405
