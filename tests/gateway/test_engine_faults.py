"""Gateway mode against a misbehaving engine (an httpx mock transport): errors and aborts."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import httpx
import orjson
import pytest
from gateway_support import Deployment

from tokenfront.api.app import create_app
from tokenfront.config import ServerSettings
from tokenfront.gateway.client import EngineClient
from tokenfront.tokenization.registry import ModelRegistry

pytestmark = pytest.mark.anyio

Handler = Callable[[httpx.Request], httpx.Response]


class FakeEngine:
    """Answers generate calls with `handler` and records aborts."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.aborted: list[str] = []
        self.generate_calls = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("abort_requests"):
            self.aborted.extend(orjson.loads(request.content)["request_ids"])
            return httpx.Response(200)
        self.generate_calls += 1
        return self.handler(request)


async def aborts_sent(engine: FakeEngine) -> None:
    """Let the background abort task run (up to a second)."""
    for _ in range(100):
        if engine.aborted:
            return
        await asyncio.sleep(0.01)


def sse(*events: object) -> httpx.Response:
    body = b"".join(
        b"data: " + (e if isinstance(e, bytes) else orjson.dumps(e)) + b"\n\n" for e in events
    )
    return httpx.Response(200, content=body + b"data: [DONE]\n\n")


def chunk(ids: list[int], finish: str | None = None) -> dict[str, object]:
    return {
        "request_id": "generate-tokens-x",
        "output_mode": "tokens",
        "choices": [{"index": 0, "token_ids": ids, "finish_reason": finish}],
    }


async def call(
    deployment: Deployment, engine: FakeEngine, path: str, body: dict[str, object]
) -> httpx.Response:
    app = create_app(ModelRegistry([deployment.model]), ServerSettings(engine_url="http://engine"))
    app.state.engine_client = EngineClient(
        "http://engine", timeout=5, max_connections=4, transport=httpx.MockTransport(engine)
    )
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://gw") as c:
        return await c.post(path, json=body)


def events(resp: httpx.Response) -> list[object]:
    out: list[object] = []
    for block in resp.text.split("\n\n"):
        if block.startswith("data: "):
            data = block[6:]
            out.append(data if data == "[DONE]" else orjson.loads(data))
    return out


CHAT = {"model": "qwen3", "messages": [{"role": "user", "content": "Hi"}], "stream": True}


def hello_ids(deployment: Deployment) -> list[int]:
    ids: list[int] = deployment.model.tokenizer.encode("Hello")
    return ids


async def test_engine_error_event_mid_stream_is_passed_on(deployment: Deployment) -> None:
    error = {"error": {"message": "engine died", "type": "InternalServerError", "code": 500}}
    engine = FakeEngine(lambda r: sse(chunk(hello_ids(deployment)), error))
    got = events(await call(deployment, engine, "/v1/chat/completions", CHAT))
    assert got[-1] == "[DONE]" and got[-2] == error
    assert got[0]["choices"][0]["delta"]["role"] == "assistant"  # type: ignore[index]
    assert engine.aborted == []  # the engine ended the request itself


async def test_garbage_mid_stream_is_a_502_event_and_an_abort(deployment: Deployment) -> None:
    engine = FakeEngine(lambda r: sse(chunk(hello_ids(deployment)), b"{not json"))
    got = events(await call(deployment, engine, "/v1/chat/completions", CHAT))
    assert got[-1] == "[DONE]"
    assert got[-2]["error"]["code"] == 502  # type: ignore[index]
    await aborts_sent(engine)
    assert engine.aborted and engine.aborted[0].startswith("generate-tokens-chatcmpl-")


async def test_underivable_output_is_a_502_event(deployment: Deployment) -> None:
    # Unknown output ids decode to nothing (as on vLLM), but a negative logprob id cannot be resolved.
    bad = chunk(hello_ids(deployment)[:1], "stop")
    bad["choices"][0]["logprobs"] = {  # type: ignore[index]
        "content": [{"token_id": -1, "logprob": -0.5, "top_logprobs": []}]
    }
    engine = FakeEngine(lambda r: sse(bad))
    got = events(await call(deployment, engine, "/v1/chat/completions", CHAT))
    assert got[-2]["error"]["code"] == 502  # type: ignore[index]
    assert "derendered" in got[-2]["error"]["message"]  # type: ignore[index]


async def test_non_streaming_bad_answers(deployment: Deployment) -> None:
    body = {**CHAT, "stream": False}
    wrong = FakeEngine(lambda r: httpx.Response(200, json={"choices": "nope"}))
    resp = await call(deployment, wrong, "/v1/chat/completions", body)
    assert resp.status_code == 502 and "invalid engine response" in resp.json()["error"]["message"]
    busy = FakeEngine(lambda r: httpx.Response(429, json={"error": {"message": "slow down"}}))
    resp = await call(deployment, busy, "/v1/chat/completions", body)
    assert resp.status_code == 429 and resp.json()["error"]["message"] == "slow down"
    broken = FakeEngine(lambda r: httpx.Response(500, text="boom"))
    resp = await call(deployment, broken, "/v1/completions", {"model": "qwen3", "prompt": "x"})
    assert resp.status_code == 502 and "500" in resp.json()["error"]["message"]


async def test_refused_second_prompt_aborts_the_first(deployment: Deployment) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if orjson.loads(request.content)["request_id"].endswith("-1"):
            return httpx.Response(400, json={"error": {"message": "no second prompt"}})
        return sse(chunk(hello_ids(deployment), "stop"))

    engine = FakeEngine(handler)
    body = {"model": "qwen3", "prompt": ["a", "b"], "stream": True, "max_tokens": 3}
    resp = await call(deployment, engine, "/v1/completions", body)
    assert resp.status_code == 400 and resp.json()["error"]["message"] == "no second prompt"
    await aborts_sent(engine)
    assert len(engine.aborted) == 1 and engine.aborted[0].endswith("-0")


async def test_render_errors_never_reach_the_engine(deployment: Deployment) -> None:
    engine = FakeEngine(lambda r: httpx.Response(500))
    resp = await call(
        deployment, engine, "/v1/chat/completions", {"model": "qwen3", "messages": []}
    )
    assert resp.status_code == 400 and engine.generate_calls == 0
