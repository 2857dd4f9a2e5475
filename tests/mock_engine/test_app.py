"""The mock engine over HTTP: vLLM's generate wire format, streaming, abort, errors."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import orjson
import pytest

from tokenfront.mock_engine.app import MockEngine, create_mock_app
from tokenfront.mock_engine.script import parse_script
from tokenfront.protocol.generate import GenerateTokensResponse, GenerateTokensStreamResponse
from tokenfront.tokenization.registry import ServedModel

pytestmark = pytest.mark.anyio

SCRIPT = {
    "rules": [
        {"pattern": "explode", "error": {"status": 503, "message": "engine overloaded"}},
        {"pattern": "slow", "output": "tick " * 200, "token_delay": 0.01},
        {"pattern": "greet", "output": "Hello there"},
    ]
}


@pytest.fixture
async def client(engine_model: ServedModel) -> AsyncIterator[httpx.AsyncClient]:
    app = create_mock_app(MockEngine(engine_model, parse_script(SCRIPT)))
    transport = httpx.ASGITransport(app)
    async with httpx.AsyncClient(transport=transport, base_url="http://engine") as c:
        yield c


def body(served: ServedModel, text: str, **extra: object) -> dict[str, object]:
    ids = served.tokenizer.encode(text)
    return {"request_id": "r1", "token_ids": ids, "sampling_params": {"max_tokens": 20}, **extra}


async def test_non_streaming_answer_is_a_generate_tokens_response(
    client: httpx.AsyncClient, engine_model: ServedModel
) -> None:
    req = body(engine_model, "greet me", return_token_ids=True)
    req["sampling_params"] = {"max_tokens": 20, "logprobs": 2, "n": 2}
    resp = await client.post("/inference/v1/generate", json=req)
    assert resp.status_code == 200
    gen = GenerateTokensResponse.model_validate(resp.json())
    assert gen.request_id == "generate-tokens-r1"
    assert len(gen.choices) == 2 and gen.choices[1].index == 1
    ids = gen.choices[0].token_ids or []
    assert engine_model.tokenizer.decode(ids[:-1]) == "Hello there"
    assert gen.choices[0].finish_reason == "stop"
    assert gen.prompt_token_ids == req["token_ids"]
    assert gen.usage is not None and gen.usage.completion_tokens == 2 * len(ids)
    content = gen.choices[0].logprobs.content  # type: ignore[union-attr]
    assert content is not None and len(content) == len(ids)
    assert len(content[0].get("top_logprobs", [])) == 2


async def test_header_request_id(client: httpx.AsyncClient, engine_model: ServedModel) -> None:
    resp = await client.post(
        "/inference/v1/generate", json=body(engine_model, "greet"), headers={"X-Request-Id": "h"}
    )
    assert resp.json()["request_id"] == "generate-tokens-h"


async def test_streaming_chunks_usage_and_done(
    client: httpx.AsyncClient, engine_model: ServedModel
) -> None:
    req = body(
        engine_model,
        "greet",
        stream=True,
        return_token_ids=True,
        stream_options={"include_usage": True, "continuous_usage_stats": True},
    )
    resp = await client.post("/inference/v1/generate", json=req)
    events = [line[6:] for line in resp.text.split("\n\n") if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    chunks = [GenerateTokensStreamResponse.model_validate(orjson.loads(e)) for e in events[:-1]]
    assert chunks[0].prompt_token_ids == req["token_ids"]
    assert chunks[1].prompt_token_ids is None
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    streamed = [t for c in chunks for ch in c.choices for t in ch.token_ids or []]
    assert chunks[-1].usage.completion_tokens == len(streamed)
    assert chunks[-2].choices[0].finish_reason == "stop"
    assert all(c.choices[0].finish_reason is None for c in chunks[:-2])
    assert chunks[0].usage is not None and chunks[0].usage.completion_tokens == 1


async def test_length_finish(client: httpx.AsyncClient, engine_model: ServedModel) -> None:
    req = body(engine_model, "greet")
    req["sampling_params"] = {"max_tokens": 1}
    gen = (await client.post("/inference/v1/generate", json=req)).json()
    assert gen["choices"][0]["finish_reason"] == "length"
    assert len(gen["choices"][0]["token_ids"]) == 1


async def test_scripted_error_and_validation(
    client: httpx.AsyncClient, engine_model: ServedModel
) -> None:
    resp = await client.post("/inference/v1/generate", json=body(engine_model, "explode"))
    assert resp.status_code == 503
    assert resp.json()["error"]["message"] == "engine overloaded"
    resp = await client.post(
        "/inference/v1/generate", json={"token_ids": [], "sampling_params": {}}
    )
    assert resp.status_code == 400 and resp.json()["error"]["type"] == "BadRequestError"
    resp = await client.post("/inference/v1/generate", json=body(engine_model, "x", model="nope"))
    assert resp.status_code == 404


async def test_abort_ends_a_running_stream(
    client: httpx.AsyncClient, engine_model: ServedModel
) -> None:
    req = body(engine_model, "slow", stream=True)
    req["sampling_params"] = {"max_tokens": 500}

    async def run() -> list[dict[str, object]]:
        resp = await client.post("/inference/v1/generate", json=req)
        return [
            orjson.loads(line[6:]) for line in resp.text.split("\n\n") if line.startswith("data: {")
        ]

    task = asyncio.ensure_future(run())
    await asyncio.sleep(0.1)
    resp = await client.post(
        "/inference/v1/abort_requests", json={"request_ids": ["generate-tokens-r1"]}
    )
    assert resp.status_code == 200
    chunks = await asyncio.wait_for(task, 10)
    assert chunks[-1]["choices"][0]["finish_reason"] == "abort"  # type: ignore[index]
    assert len(chunks) < 150
    seen = (await client.get("/mock/requests")).json()
    assert "generate-tokens-r1" in seen["aborted"] and seen["active"] == []
    bad = await client.post("/inference/v1/abort_requests", json={})
    assert bad.status_code == 400


async def test_health_and_models(client: httpx.AsyncClient) -> None:
    assert (await client.get("/health")).status_code == 200
    assert (await client.get("/v1/models")).json()["data"][0]["id"] == "qwen3"
