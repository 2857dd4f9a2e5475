"""End to end: the OpenAI Python SDK against gateway mode over the mock engine."""

from __future__ import annotations

import json
import time

import httpx
import openai
import pytest
from gateway_support import Deployment

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current conditions for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}


@pytest.fixture(scope="module")
def sdk(deployment: Deployment) -> openai.OpenAI:
    return openai.OpenAI(base_url=deployment.gateway_url + "/v1", api_key="unused", max_retries=0)


def test_chat_non_streaming_with_reasoning(sdk: openai.OpenAI) -> None:
    resp = sdk.chat.completions.create(
        model="qwen3", messages=[{"role": "user", "content": "Hi there"}]
    )
    assert resp.id.startswith("chatcmpl-") and resp.object == "chat.completion"
    choice = resp.choices[0]
    assert choice.message.content.strip() == "Hello from the mock engine."
    assert choice.message.reasoning.strip() == "A greeting is enough."
    assert choice.finish_reason == "stop"
    assert resp.usage is not None and resp.usage.prompt_tokens > 0
    assert resp.usage.total_tokens == resp.usage.prompt_tokens + resp.usage.completion_tokens


def test_chat_streaming_with_reasoning_and_usage(sdk: openai.OpenAI) -> None:
    stream = sdk.chat.completions.create(
        model="qwen3",
        messages=[{"role": "user", "content": "Hi there"}],
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    assert chunks[0].choices[0].delta.role == "assistant"
    assert len({c.id for c in chunks}) == 1
    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    reasoning = "".join(
        getattr(c.choices[0].delta, "reasoning", None) or "" for c in chunks if c.choices
    )
    assert content.strip() == "Hello from the mock engine."
    assert reasoning.strip() == "A greeting is enough."
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices]
    assert finishes[-1] == "stop" and set(finishes[:-1]) == {None}
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert chunks[-1].usage.completion_tokens > 0


def test_tool_call_non_streaming(sdk: openai.OpenAI) -> None:
    resp = sdk.chat.completions.create(
        model="qwen3",
        messages=[{"role": "user", "content": "What is the weather in Paris?"}],
        tools=[WEATHER_TOOL],
    )
    choice = resp.choices[0]
    assert choice.finish_reason == "tool_calls"
    call = choice.message.tool_calls[0]
    assert call.function.name == "get_weather"
    assert json.loads(call.function.arguments) == {"city": "Paris"}
    assert "weather" in choice.message.reasoning


def test_tool_call_streaming(sdk: openai.OpenAI) -> None:
    stream = sdk.chat.completions.create(
        model="qwen3",
        messages=[{"role": "user", "content": "What is the weather in Paris?"}],
        tools=[WEATHER_TOOL],
        stream=True,
    )
    name, args, ids, finish = "", "", set(), None
    for chunk in stream:
        choice = chunk.choices[0]
        for call in choice.delta.tool_calls or []:
            assert call.index == 0
            if call.id:
                ids.add(call.id)
            if call.function and call.function.name:
                name += call.function.name
            if call.function and call.function.arguments:
                args += call.function.arguments
        finish = choice.finish_reason or finish
    assert name == "get_weather" and json.loads(args) == {"city": "Paris"}
    assert len(ids) == 1 and finish == "tool_calls"


def test_max_tokens_and_logprobs(sdk: openai.OpenAI) -> None:
    resp = sdk.chat.completions.create(
        model="qwen3",
        messages=[{"role": "user", "content": "Hi"}],
        max_tokens=3,
        logprobs=True,
        top_logprobs=2,
        n=2,
    )
    assert [c.index for c in resp.choices] == [0, 1]
    for choice in resp.choices:
        assert choice.finish_reason == "length"
        assert len(choice.logprobs.content) == 3
        assert len(choice.logprobs.content[0].top_logprobs) == 2
    assert resp.usage.completion_tokens == 6


def test_completions_non_streaming_and_streaming(sdk: openai.OpenAI) -> None:
    resp = sdk.completions.create(model="qwen3", prompt=["One", "Two"], max_tokens=4, n=2)
    assert resp.id.startswith("cmpl-")
    assert [c.index for c in resp.choices] == [0, 1, 2, 3]
    assert all(c.finish_reason == "length" and c.text for c in resp.choices)
    assert resp.usage.completion_tokens == 16

    stream = sdk.completions.create(
        model="qwen3",
        prompt=["One", "Two"],
        max_tokens=4,
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    texts: dict[int, str] = {}
    for chunk in chunks:
        for choice in chunk.choices:
            texts[choice.index] = texts.get(choice.index, "") + choice.text
    assert texts[0] == texts[1] == resp.choices[0].text
    assert len({c.id for c in chunks}) == 1
    assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens == 8


def test_engine_errors_become_openai_errors(sdk: openai.OpenAI, deployment: Deployment) -> None:
    with pytest.raises(openai.InternalServerError) as busy:
        sdk.chat.completions.create(
            model="qwen3", messages=[{"role": "user", "content": "explode"}]
        )
    assert busy.value.status_code == 503 and "engine overloaded" in busy.value.message
    with pytest.raises(openai.InternalServerError) as odd:
        sdk.chat.completions.create(
            model="qwen3", messages=[{"role": "user", "content": "teapot"}], stream=True
        )
    assert odd.value.status_code == 502 and "418" in odd.value.message

    orphan = openai.OpenAI(base_url=deployment.orphan_url + "/v1", api_key="x", max_retries=0)
    with pytest.raises(openai.InternalServerError) as down:
        orphan.completions.create(model="qwen3", prompt="hi", max_tokens=2)
    assert down.value.status_code == 503

    impatient = openai.OpenAI(base_url=deployment.impatient_url + "/v1", api_key="x", max_retries=0)
    with pytest.raises(openai.InternalServerError) as slow:
        impatient.chat.completions.create(
            model="qwen3", messages=[{"role": "user", "content": "sleepy"}]
        )
    assert slow.value.status_code == 504


def test_client_errors_stay_client_errors(sdk: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as stop:
        sdk.chat.completions.create(
            model="qwen3", messages=[{"role": "user", "content": "Hi"}], stop=["x"], stream=True
        )
    assert "stop strings" in stop.value.message
    with pytest.raises(openai.NotFoundError):
        sdk.chat.completions.create(model="nope", messages=[{"role": "user", "content": "Hi"}])


def _wait_for_abort(deployment: Deployment, engine_id: str) -> dict[str, object]:
    deadline = time.monotonic() + 10
    while True:
        seen = httpx.get(deployment.engine_url + "/mock/requests").json()
        if engine_id in seen["aborted"] and engine_id not in seen["active"]:
            return seen
        if time.monotonic() > deadline:
            raise AssertionError(f"{engine_id} was not aborted: {seen}")
        time.sleep(0.05)


def test_streaming_disconnect_aborts_the_engine_request(deployment: Deployment) -> None:
    body = {
        "model": "qwen3",
        "messages": [{"role": "user", "content": "Tell me a long story"}],
        "stream": True,
    }
    with httpx.Client(timeout=10) as client:
        with client.stream("POST", deployment.gateway_url + "/v1/chat/completions", json=body) as r:
            assert r.status_code == 200
            lines = r.iter_lines()
            first = next(line for line in lines if line.startswith("data: "))
            response_id = json.loads(first[6:])["id"]
            for _ in range(3):
                next(lines)
    # Leaving the block closed the connection mid-stream.
    _wait_for_abort(deployment, f"generate-tokens-{response_id}")


def test_non_streaming_disconnect_aborts_the_engine_request(deployment: Deployment) -> None:
    body = {"model": "qwen3", "messages": [{"role": "user", "content": "Tell me a long story"}]}
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(
            deployment.gateway_url + "/v1/chat/completions",
            json=body,
            headers={"X-Request-Id": "walked-away"},
            timeout=httpx.Timeout(10, read=0.5),
        )
    _wait_for_abort(deployment, "generate-tokens-chatcmpl-walked-away")


def test_chat_streaming_several_choices(sdk: openai.OpenAI) -> None:
    stream = sdk.chat.completions.create(
        model="qwen3",
        messages=[{"role": "user", "content": "Hi there"}],
        n=2,
        stream=True,
        stream_options={"include_usage": True, "continuous_usage_stats": True},
    )
    content: dict[int, str] = {}
    finishes: dict[int, str] = {}
    roles: list[int] = []
    for chunk in stream:
        assert chunk.usage is not None
        for choice in chunk.choices:
            if choice.delta.role:
                roles.append(choice.index)
            content[choice.index] = content.get(choice.index, "") + (choice.delta.content or "")
            if choice.finish_reason:
                finishes[choice.index] = choice.finish_reason
    assert sorted(roles) == [0, 1]
    assert content[0].strip() == content[1].strip() == "Hello from the mock engine."
    assert finishes == {0: "stop", 1: "stop"}
