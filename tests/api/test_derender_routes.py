"""The derender routes end to end: dispatch on `stream`, validation 400s, state errors, never a 5xx."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokenfront.api.app import create_app
from tokenfront.config import ModelOptions, ServerSettings
from tokenfront.tokenization.registry import ModelRegistry, load_model

MODELS = Path(os.environ["TOKENFRONT_TEST_MODELS"])
CHAT = "/v1/chat/completions/derender"
COMPLETION = "/v1/completions/derender"


@pytest.fixture(scope="module")
def client() -> TestClient:
    path = MODELS / "qwen3"
    if not path.is_dir():
        pytest.skip("shared qwen3 model not available")
    model = load_model(
        ModelOptions(model=str(path), served_model_name=["qwen3"], max_model_len=256)
    )
    app = create_app(ModelRegistry([model]), ServerSettings(stream_state_key=["k"]))
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


def post(client: TestClient, path: str, body: Any) -> Any:
    return client.post(path, json=body)


def test_chat_non_stream(client) -> None:
    res = post(
        client,
        CHAT,
        {
            "generate_response": {
                "request_id": "r1",
                "choices": [{"index": 0, "token_ids": [9707, 151645]}],
            }
        },
    )
    assert res.status_code == 200
    data = res.json()
    assert data["id"] == "r1"
    assert data["model"] == "qwen3"
    assert data["choices"][0]["message"]["content"] == "Hello"


def test_completion_non_stream(client) -> None:
    res = post(
        client,
        COMPLETION,
        {
            "generate_responses": [{"choices": [{"index": 0, "token_ids": [9707]}]}],
            "prompt_tokens": [2],
        },
    )
    assert res.status_code == 200
    assert res.json()["choices"][0]["text"] == "Hello"
    assert res.json()["usage"]["total_tokens"] == 3


def test_unknown_model_404(client) -> None:
    res = post(
        client,
        CHAT,
        {"model": "nope", "generate_response": {"choices": [{"index": 0, "token_ids": [1]}]}},
    )
    assert res.status_code == 404
    assert res.json()["error"]["type"] == "NotFoundError"


@pytest.mark.parametrize(
    ("path", "body"),
    [
        (CHAT, {"generate_response": {"choices": [{"token_ids": [1]}]}}),
        (CHAT, {"generate_response": {"choices": [{"index": 0, "token_ids": [5, -1]}]}}),
        (
            CHAT,
            {
                "prompt_token_ids": [-1],
                "generate_response": {"choices": [{"index": 0, "token_ids": [5]}]},
            },
        ),
        (
            CHAT,
            {
                "generate_response": {
                    "output_mode": "text",
                    "choices": [{"index": 0, "token_ids": [1], "text": "x"}],
                }
            },
        ),
        (COMPLETION, {"generate_responses": {"choices": []}}),
        (
            COMPLETION,
            {
                "generate_responses": [{"choices": [{"index": 0, "token_ids": [1]}]}] * 2,
                "prompt_token_ids": [[1]],
            },
        ),
        (
            CHAT,
            {
                "stream": True,
                "generate_chunk": {"choices": []},
                "stream_state": {"output_token_ids": [1, 2, 3], "output_chunk_lens": [2]},
            },
        ),
        (
            CHAT,
            {
                "stream": True,
                "generate_chunk": {"choices": []},
                "stream_state": {"prev_tokens": ["a"] * 1025},
            },
        ),
        (CHAT, [1, 2, 3]),
    ],
)
def test_validation_errors_are_bad_request(client, path, body) -> None:
    res = post(client, path, body)
    assert res.status_code == 400
    assert res.json()["error"]["type"] == "Bad Request"


def test_handler_errors_are_bad_request_error(client) -> None:
    res = post(client, COMPLETION, {"generate_responses": []})
    assert res.status_code == 400
    assert res.json()["error"]["type"] == "BadRequestError"
    res = post(client, CHAT, {"generate_response": {"choices": [{"index": 0, "token_ids": []}]}})
    assert res.json()["error"]["type"] == "BadRequestError"


def test_empty_choices_give_empty_answer(client) -> None:
    res = post(
        client,
        CHAT,
        {
            "generate_response": {"choices": []},
            "chat_request": {"messages": [{"role": "user", "content": "x"}]},
        },
    )
    assert res.status_code == 200
    assert res.json()["choices"] == []


def test_stream_round_trip_and_forged_state(client) -> None:
    first = post(
        client,
        CHAT,
        {
            "stream": True,
            "generate_chunk": {"request_id": "s", "choices": [{"index": 0, "token_ids": [9707]}]},
        },
    )
    assert first.status_code == 200
    state = first.json()["stream_state"]
    assert isinstance(state, str)
    second = post(
        client,
        CHAT,
        {
            "stream": True,
            "stream_state": state,
            "generate_chunk": {
                "choices": [{"index": 0, "token_ids": [151645], "finish_reason": "stop"}]
            },
        },
    )
    assert second.status_code == 200
    assert second.json()["chunk"]["choices"][0]["finish_reason"] == "stop"
    for forged in (
        state[:-2],
        state[::-1],
        "abc",
        state.replace(state[5], "A" if state[5] != "A" else "B", 1),
    ):
        res = post(
            client,
            CHAT,
            {"stream": True, "stream_state": forged, "generate_chunk": {"choices": []}},
        )
        assert res.status_code == 400
        assert "invalid stream_state" in res.json()["error"]["message"]
    # A chat state is not a completion state.
    res = post(
        client,
        COMPLETION,
        {"stream": True, "stream_state": state, "generate_chunk": {"choices": []}},
    )
    assert res.status_code == 400


ids = st.lists(st.one_of(st.integers(0, 151700), st.integers(-5, 2**40)), max_size=12)
logprobs = st.one_of(
    st.none(),
    st.builds(
        lambda xs, k: {
            "content": [
                {
                    "token_id": x,
                    "logprob": -1.0,
                    "top_logprobs": [{"token_id": x, "logprob": -1.0}] * k,
                }
                for x in xs
            ]
        },
        ids,
        st.integers(0, 25),
    ),
)
chat_requests = st.one_of(
    st.none(),
    st.fixed_dictionaries(
        {"messages": st.just([{"role": "user", "content": "x"}])},
        optional={
            "stop": st.one_of(st.text(max_size=3), st.lists(st.text(max_size=3), max_size=3)),
            "min_tokens": st.integers(-3, 5),
            "include_stop_str_in_output": st.booleans(),
            "ignore_eos": st.booleans(),
            "skip_special_tokens": st.booleans(),
            "stop_token_ids": st.lists(st.integers(-2, 200000), max_size=3),
            "logprobs": st.booleans(),
            "top_logprobs": st.integers(-2, 30),
            "return_token_ids": st.booleans(),
        },
    ),
)
choices = st.lists(
    st.fixed_dictionaries(
        {"index": st.integers(0, 3), "token_ids": st.one_of(st.none(), ids)},
        optional={
            "finish_reason": st.sampled_from(["stop", "length", None, "abort"]),
            "stop_reason": st.one_of(st.none(), st.integers(-1, 151700), st.text(max_size=3)),
            "logprobs": logprobs,
        },
    ),
    max_size=3,
)


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    choices=choices,
    chat_request=chat_requests,
    prompt=st.one_of(st.none(), ids),
    stream=st.booleans(),
    endpoint=st.sampled_from([CHAT, COMPLETION]),
    state=st.one_of(
        st.none(), st.text(max_size=20), st.just({"prev_tokens": ["\u0120a"], "read_offset": 5})
    ),
)
def test_never_5xx(client, choices, chat_request, prompt, stream, endpoint, state) -> None:
    body: dict[str, Any] = {"prompt_token_ids": prompt}
    if stream:
        body.update(stream=True, generate_chunk={"choices": choices}, stream_state=state)
    elif endpoint == CHAT:
        body["generate_response"] = {"choices": choices}
    else:
        body["generate_responses"] = [{"choices": choices}]
        body["prompt_token_ids"] = [prompt]
    if chat_request is not None:
        if endpoint == CHAT:
            body["chat_request"] = chat_request
        else:
            body["completion_request"] = {
                k: v for k, v in chat_request.items() if k not in ("messages", "top_logprobs")
            } | {"prompt": "x"}
    res = post(client, endpoint, body)
    assert res.status_code < 500, res.text


def test_out_of_vocabulary_ids_like_vllm(client) -> None:
    ok = post(
        client,
        CHAT,
        {"generate_response": {"choices": [{"index": 0, "token_ids": [9707, 151700, 2**40]}]}},
    )
    assert ok.status_code == 200
    assert ok.json()["choices"][0]["message"]["content"] == "Hello"
    for path, body in (
        (
            CHAT,
            {
                "prompt_token_ids": [2**40],
                "generate_response": {"choices": [{"index": 0, "token_ids": [1]}]},
            },
        ),
        (
            COMPLETION,
            {
                "prompt_token_ids": [[2**40]],
                "generate_responses": [{"choices": [{"index": 0, "token_ids": [1]}]}],
            },
        ),
        (
            COMPLETION,
            {
                "stream": True,
                "prompt_token_ids": [2**40],
                "generate_chunk": {"choices": [{"index": 0, "token_ids": [1]}]},
            },
        ),
        (
            CHAT,
            {
                "stream": True,
                "prompt_token_ids": [2**40],
                "generate_chunk": {"choices": [{"index": 0, "token_ids": [1]}]},
            },
        ),
    ):
        res = post(client, path, body)
        assert res.status_code == 400, body
        assert res.json()["error"]["type"] == "BadRequestError"
