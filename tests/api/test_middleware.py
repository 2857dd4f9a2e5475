"""The app's guard and error handling: API key, size limits, 500s, validation errors, metrics."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from pydantic import BaseModel

from tokenfront import metrics
from tokenfront.api.app import create_app
from tokenfront.config import ModelOptions, ServerSettings
from tokenfront.tokenization.registry import ModelRegistry, ServedModel

KEY = "s3cret-key"


def fake_registry() -> ModelRegistry:
    model = ServedModel(
        options=ModelOptions(model="/models/fake", served_model_name=["fake"]),
        names=["fake", "alias"],
        path="/models/fake",
        tokenizer=None,
        hf_config={},
        generation_config={},
        chat_template=None,
        max_model_len=1024,
        eos_token_id=None,
        model_eos_token_ids=frozenset(),
        vocab_size=0,
    )
    return ModelRegistry([model])


class Item(BaseModel):
    count: int
    tags: list[str]


def make_app(**settings: Any) -> FastAPI:
    app = create_app(fake_registry(), ServerSettings(**settings))

    @app.get("/boom")
    async def boom() -> None:
        raise RuntimeError("database password is hunter2")

    @app.post("/items")
    async def items(item: Item) -> dict[str, int]:
        return {"count": item.count}

    return app


@pytest.fixture
def client() -> TestClient:
    return TestClient(make_app(), raise_server_exceptions=False)


@pytest.fixture
def keyed() -> TestClient:
    return TestClient(make_app(api_key=[KEY, "other"]), raise_server_exceptions=False)


def test_vllm_system_routes(client: TestClient) -> None:
    # a render server has no engine-backed routes and no KV-event publishers (as vLLM's)
    assert client.get("/load").json() == {"server_load": 0}
    assert client.get("/kv_event_sources").json() == {}
    assert client.get("/ping").status_code == 200


def test_models_listed(client: TestClient) -> None:
    body = client.get("/v1/models").json()
    assert [m["id"] for m in body["data"]] == ["fake", "alias"]
    assert body["data"][0]["max_model_len"] == 1024


def test_api_key_required_everywhere_but_health(keyed: TestClient) -> None:
    assert keyed.get("/health").status_code == 200
    assert keyed.get("/ping").status_code == 200 and keyed.post("/ping").status_code == 200
    for path in ("/v1/models", "/version", "/metrics", "/load", "/no-such-route"):
        r = keyed.get(path)
        assert r.status_code == 401, path
        assert r.json() == {
            "error": {
                "message": "Invalid or missing API key.",
                "type": "Unauthorized",
                "param": None,
                "code": 401,
            }
        }


@pytest.mark.parametrize(
    "header",
    [f"Bearer {KEY}x", f"Basic {KEY}", KEY, "Bearer ", f"Bearer {KEY[:-1]}"],
)
def test_wrong_credentials_refused(keyed: TestClient, header: str) -> None:
    assert keyed.get("/v1/models", headers={"Authorization": header}).status_code == 401


@pytest.mark.parametrize("key", [KEY, "other"])
def test_any_configured_key_accepted(keyed: TestClient, key: str) -> None:
    r = keyed.get("/v1/models", headers={"Authorization": f"bearer {key}"})
    assert r.status_code == 200


def test_cors_preflight_needs_no_key(keyed: TestClient) -> None:
    r = keyed.options(
        "/v1/models",
        headers={"Origin": "http://example.test", "Access-Control-Request-Method": "GET"},
    )
    assert r.status_code == 200


def test_declared_body_over_limit_refused_before_reading() -> None:
    client = TestClient(make_app(max_request_bytes=64), raise_server_exceptions=False)
    r = client.post(
        "/items", content=b"{" + b" " * 100 + b"}", headers={"content-type": "application/json"}
    )
    assert r.status_code == 413
    assert r.json()["error"]["type"] == "Request Entity Too Large"


def test_chunked_body_over_limit_refused() -> None:
    client = TestClient(make_app(max_request_bytes=64), raise_server_exceptions=False)

    def chunks():  # type: ignore[no-untyped-def]
        for _ in range(10):
            yield b"          "

    r = client.post("/items", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413


def test_oversized_headers_refused() -> None:
    client = TestClient(make_app(max_header_bytes=1024), raise_server_exceptions=False)
    r = client.get("/v1/models", headers={"x-big": "a" * 2000})
    assert r.status_code == 431
    assert r.json()["error"]["code"] == 431


def test_too_many_headers_refused() -> None:
    client = TestClient(make_app(max_header_count=8), raise_server_exceptions=False)
    assert client.get("/v1/models").status_code == 200
    r = client.get("/v1/models", headers={f"x-h{i}": "v" for i in range(10)})
    assert r.status_code == 431
    assert "--h11-max-header-count" in r.json()["error"]["message"]


def test_unexpected_error_is_opaque_500(client: TestClient) -> None:
    r = client.get("/boom")
    assert r.status_code == 500
    assert r.json() == {
        "error": {
            "message": "Internal server error",
            "type": "InternalServerError",
            "param": None,
            "code": 500,
        }
    }
    assert "hunter2" not in r.text and "Traceback" not in r.text


def test_validation_error_in_vllm_shape(client: TestClient) -> None:
    r = client.post("/items", json={"count": "many", "tags": "x"})
    assert r.status_code == 400
    err = r.json()["error"]
    assert err["type"] == "Bad Request" and err["code"] == 400
    assert err["param"] == "body.count"
    assert err["message"].startswith("2 validation errors:\n  {")


def test_validation_error_bounded() -> None:
    from pydantic import ValidationError

    from tokenfront.api.errors import validation_error

    class Many(BaseModel):
        xs: list[int]

    with pytest.raises(ValidationError) as info:
        Many.model_validate({"xs": ["a" * 1000] * 50})
    err = validation_error(info.value)
    assert err.message.startswith("50 validation errors:")
    assert "...and 40 more errors" in err.message
    assert len(err.message) < 10 * 1100


def test_unknown_route_and_method_keep_fastapi_shape(client: TestClient) -> None:
    assert client.get("/nope").json() == {"detail": "Not Found"}
    r = client.delete("/v1/models")
    assert r.status_code == 405 and r.json() == {"detail": "Method Not Allowed"}


def test_request_id_echoed_when_enabled() -> None:
    client = TestClient(make_app(enable_request_id_headers=True))
    assert (
        client.get("/health", headers={"X-Request-Id": "abc-1"}).headers["x-request-id"] == "abc-1"
    )
    assert len(client.get("/health").headers["x-request-id"]) == 32
    plain = TestClient(make_app())
    assert "x-request-id" not in plain.get("/health").headers


def _sample(text: str, name: str, **labels: str) -> float:
    for line in text.splitlines():
        if not line.startswith(name + "{") and not line.startswith(name + " "):
            continue
        if all(f'{k}="{v}"' in line for k, v in labels.items()):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_metrics_count_requests_errors_and_tokens(client: TestClient) -> None:
    before = client.get("/metrics").text
    client.get("/v1/models")
    client.get("/boom")
    metrics.observe_tokens("rendered", 7)
    metrics.parser_failure("hermes")
    after = client.get("/metrics")
    assert after.headers["content-type"].startswith("text/plain")
    text = after.text

    def delta(name: str, **labels: str) -> float:
        return _sample(text, name, **labels) - _sample(before, name, **labels)

    assert delta("tokenfront_http_requests_total", endpoint="/v1/models", status="200") == 1
    assert delta("tokenfront_http_request_errors_total", endpoint="/boom", status="500") == 1
    assert delta("tokenfront_http_request_duration_seconds_count", endpoint="/v1/models", method="GET") == 1
    assert delta("tokenfront_tokens_total", kind="rendered") == 7
    assert delta("tokenfront_parser_failures_total", parser="hermes") == 1
    assert "_created" not in text


def test_rejections_counted(keyed: TestClient) -> None:
    keyed.get("/v1/models")
    text = keyed.get("/metrics", headers={"Authorization": f"Bearer {KEY}"}).text
    assert _sample(text, "tokenfront_rejected_requests_total", reason="auth") >= 1
    assert _sample(text, "tokenfront_http_requests_total", endpoint="refused", status="401") >= 1


def test_fastapi_docs_can_be_disabled(client: TestClient) -> None:
    assert client.get("/openapi.json").status_code == 200
    hidden = TestClient(make_app(disable_fastapi_docs=True))
    for path in ("/openapi.json", "/docs", "/redoc"):
        assert hidden.get(path).status_code == 404


def test_parse_model_accepts_type_adapters() -> None:
    from pydantic import TypeAdapter

    from tokenfront.api.body import parse_model
    from tokenfront.api.errors import APIError

    adapter = TypeAdapter(int | list[int])
    assert parse_model(adapter, [1, 2]) == [1, 2]
    assert parse_model(Item, {"count": 1, "tags": []}).count == 1
    with pytest.raises(APIError) as info:
        parse_model(adapter, "x")
    assert info.value.status == 400 and info.value.param == "body"  # union branch names dropped
