"""The engine client: status and transport error mapping, streams, aborts."""

from __future__ import annotations

import httpx
import orjson
import pytest

from tokenfront.api.errors import APIError
from tokenfront.gateway.client import (
    EngineClient,
    engine_request_id,
    status_error,
    transport_error,
)

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("status", "expected"),
    [(400, 400), (404, 502), (413, 413), (429, 429), (500, 502), (503, 503), (504, 504)],
)
def test_status_mapping(status: int, expected: int) -> None:
    body = orjson.dumps({"error": {"message": "why", "type": "X", "code": status}})
    err = status_error(status, body)
    assert err.status == expected and "why" in err.message
    assert err.body()["error"]["code"] == expected


def test_status_messages_from_other_shapes() -> None:
    assert status_error(400, b'{"detail": "fastapi says"}').message == "fastapi says"
    assert status_error(400, b"plain text").message == "plain text"
    assert "no details" in status_error(500, b"").message


def test_transport_mapping() -> None:
    request = httpx.Request("POST", "http://e/")
    assert transport_error(httpx.ConnectError("refused", request=request)).status == 503
    assert transport_error(httpx.ReadTimeout("slow", request=request)).status == 504
    assert transport_error(httpx.PoolTimeout("full", request=request)).status == 503
    assert transport_error(httpx.RemoteProtocolError("eh", request=request)).status == 502
    assert transport_error(ValueError("junk")).status == 502


def test_engine_request_id() -> None:
    assert engine_request_id("chatcmpl-1") == "generate-tokens-chatcmpl-1"


def _client(handler: httpx.MockTransport) -> EngineClient:
    return EngineClient("http://engine/", timeout=5, max_connections=4, transport=handler)


async def test_generate_and_abort() -> None:
    seen: list[tuple[str, bytes]] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append((request.url.path, request.content))
        if request.url.path.endswith("/generate"):
            return httpx.Response(200, json={"choices": []})
        return httpx.Response(200)

    client = _client(httpx.MockTransport(handle))
    assert await client.generate({"token_ids": [1]}) == {"choices": []}
    await client.abort(["a"])
    client.abort_soon(["b"])
    await client.aclose()
    assert [p for p, _ in seen] == [
        "/inference/v1/generate",
        "/inference/v1/abort_requests",
        "/inference/v1/abort_requests",
    ]
    assert orjson.loads(seen[2][1]) == {"request_ids": ["b"]}


async def test_bad_answers() -> None:
    def handle(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=b"[1]")

    client = _client(httpx.MockTransport(handle))
    with pytest.raises(APIError) as err:
        await client.generate({})
    assert err.value.status == 502
    await client.aclose()


async def test_stream_refused_and_read() -> None:
    def handle(request: httpx.Request) -> httpx.Response:
        if b"refuse" in request.content:
            return httpx.Response(400, json={"error": {"message": "no"}})
        return httpx.Response(200, content=b'data: {"a": 1}\n\ndata: [DONE]\n\n')

    client = _client(httpx.MockTransport(handle))
    with pytest.raises(APIError) as err:
        async with client.stream({"refuse": True}):
            pass
    assert err.value.status == 400
    async with client.stream({}) as events:
        assert [e async for e in events] == [{"a": 1}]
    await client.aclose()


async def test_abort_failure_is_swallowed() -> None:
    def handle(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("down", request=request)

    client = _client(httpx.MockTransport(handle))
    await client.abort(["x"])
    await client.aclose()
