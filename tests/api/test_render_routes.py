"""Render and tokenize routes end to end over httpx.ASGITransport."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import httpx
import pytest

from tokenfront.api.app import create_app
from tokenfront.config import ModelOptions, ServerSettings
from tokenfront.tokenization.registry import ModelRegistry, load_model

MODELS = Path(os.environ["TOKENFRONT_TEST_MODELS"])
CHAT = "/v1/chat/completions/render"
COMPLETION = "/v1/completions/render"


@pytest.fixture(scope="module")
def app() -> Any:
    path = MODELS / "qwen3"
    if not path.is_dir():
        pytest.skip("shared qwen3 model not available")
    model = load_model(
        ModelOptions(
            model=str(path),
            served_model_name=["qwen3"],
            max_model_len=512,
            tool_call_parser="hermes",
            enable_auto_tool_choice=True,
            reasoning_parser="qwen3",
        )
    )
    return create_app(ModelRegistry([model]), ServerSettings())


def call(app: Any, path: str, body: Any = None, **kw: Any) -> httpx.Response:
    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            return await client.post(path, json=body, **kw)

    return asyncio.run(go())


def test_chat_render(app) -> None:
    res = call(app, CHAT, {"model": "qwen3", "messages": [{"role": "user", "content": "hi"}]})
    assert res.status_code == 200
    body = res.json()
    assert body["token_ids"] == [151644, 872, 198, 6023, 151645, 198, 151644, 77091, 198]
    assert body["request_id"].startswith("chatcmpl-") and len(body["request_id"]) == 25
    assert body["sampling_params"]["max_tokens"] == 512 - 9
    assert body["sampling_params"]["skip_special_tokens"] is False
    assert body["parse_context"]["chat_template_kwargs"]["cohere_format"] == "cmd4"
    assert body["reasoning_parser_kwargs"] is not None
    assert body["output_mode"] == "tokens"


def test_request_id_header_and_field(app) -> None:
    body = {"messages": [{"role": "user", "content": "hi"}], "request_id": "mine"}
    assert call(app, CHAT, body).json()["request_id"] == "chatcmpl-mine"
    res = call(app, CHAT, body, headers={"X-Request-Id": "hdr"})
    assert res.json()["request_id"] == "chatcmpl-hdr"


def test_completion_batch_ids(app) -> None:
    res = call(app, COMPLETION, {"prompt": ["a", "b"], "request_id": "r"})
    assert res.status_code == 200
    assert [r["request_id"] for r in res.json()] == ["cmpl-r-0", "cmpl-r-1"]


def test_completion_token_prompt_truncation(app) -> None:
    res = call(app, COMPLETION, {"prompt": [1, 2, 3, 4], "truncate_prompt_tokens": 2})
    assert res.json()[0]["token_ids"] == [3, 4]


@pytest.mark.parametrize(
    ("path", "body", "status", "err_type"),
    [
        (CHAT, {"messages": [{"role": "user", "content": "hi"}], "use_beam_search": True}, 400, "BadRequestError"),
        (CHAT, {"messages": [{"role": "user", "content": "hi"}], "max_tokens": "ten"}, 400, "Bad Request"),
        (CHAT, {"messages": [{"role": "user", "content": "hi"}], "chat_template": "x"}, 400, "BadRequestError"),
        (CHAT, {"model": "nope", "messages": [{"role": "user", "content": "hi"}]}, 404, "NotFoundError"),
        (COMPLETION, {"prompt": "hi", "suffix": "x"}, 400, "BadRequestError"),
        (COMPLETION, {"prompt": [5] * 600}, 400, "BadRequestError"),
        (COMPLETION, {"prompt": []}, 400, "BadRequestError"),
        ("/detokenize", {"tokens": "1,2"}, 400, "Bad Request"),
    ],
)
def test_errors(app, path: str, body: Any, status: int, err_type: str) -> None:
    res = call(app, path, body)
    assert res.status_code == status
    assert res.json()["error"]["type"] == err_type


def test_tokenize_and_detokenize(app) -> None:
    res = call(app, "/tokenize", {"prompt": "hi", "return_token_strs": True})
    assert res.json() == {"count": 1, "max_model_len": 512, "tokens": [6023], "token_strs": ["hi"]}
    chat = call(app, "/tokenize", {"messages": [{"role": "user", "content": "hi"}]}).json()
    assert chat["count"] == 9
    assert call(app, "/detokenize", {"tokens": [6023]}).json() == {"prompt": "hi"}


@pytest.mark.parametrize(
    ("body", "form"),
    [
        ({"prompt": "hi", "messages": []}, "prompt"),
        ({"prompt": "hi", "messages": [], "return_token_strs": True}, "prompt"),
        ({"prompt": "hi", "messages": [], "add_generation_prompt": True}, "chat"),
        ({"prompt": "hi", "messages": [], "chat_template_kwargs": {}}, "chat"),
        ({"prompt": "hi", "messages": [{"role": "user", "content": "hi"}]}, "chat"),
        ({"prompt": 5, "messages": []}, "chat"),
    ],
)
def test_tokenize_body_with_prompt_and_messages_resolves_as_vllms_union(app, body, form) -> None:
    # pydantic's smart union over vLLM's models (recorded with vLLM 0.33.0's TypeAdapter):
    # more fields set wins, messages' own fields counted, the completion form on a tie
    prompt = call(app, "/tokenize", {"prompt": "hi"}).json()["tokens"]
    res = call(app, "/tokenize", body)
    if form == "prompt":
        assert res.status_code == 200 and res.json()["tokens"] == prompt
    else:  # an empty conversation cannot be rendered; a message renders the chat
        assert res.status_code == 400 or res.json()["tokens"] != prompt


@pytest.mark.parametrize("token", [2**32 + 5, 2**40, 2**63 - 1])
def test_detokenize_ids_beyond_the_tokenizers_id_type_are_a_400(app, token: int) -> None:
    res = call(app, "/detokenize", {"tokens": [6023, token]})
    assert res.status_code == 400
    assert res.json()["error"]["message"] == "number too large to fit in target type"


@pytest.mark.parametrize(
    ("prompt", "extra", "message"),
    [
        ([[6023, 2**32]], {}, "number too large to fit in target type"),
        ([[6023, 11], [2**70, 11]], {}, "Python int too large to convert to C long"),
        ([[6023, 2**32]], {"return_token_ids": True}, None),  # no decode: ids are returned
        ([6023, 2**32], {"truncate_prompt_tokens": 1, "truncation_side": "right"}, None),
    ],
)
def test_an_echoed_id_prompt_is_decoded_after_truncation_as_vllm_does(
    app, prompt: Any, extra: dict[str, Any], message: str | None
) -> None:
    res = call(app, COMPLETION, {"model": "qwen3", "prompt": prompt, "echo": True, **extra})
    if message is None:
        assert res.status_code == 200
    else:
        assert res.status_code == 400
        assert res.json()["error"]["message"] == message


@pytest.mark.parametrize(("path", "body"), [(COMPLETION, []), ("/tokenize", "text")])
def test_a_body_that_is_no_object_reads_as_vllms_model_attributes_error(app, path, body) -> None:
    # FastAPI validates vLLM's bodies with from_attributes; /tokenize's locs name no union member
    message = call(app, path, body).json()["error"]["message"]
    assert "'type': 'model_attributes_type', 'loc': 'body'" in message
    assert "model_type" not in message and "Tokenize" not in message


@pytest.mark.parametrize("value", [7, "x", [1]])
def test_repetition_detection_that_is_no_object_is_vllms_dataclass_error(app, value) -> None:
    # vLLM declares RepetitionDetectionParams as a dataclass
    res = call(app, CHAT, {"messages": [{"role": "user", "content": "hi"}], "repetition_detection": value})
    message = res.json()["error"]["message"]
    assert res.status_code == 400 and "'type': 'dataclass_type', 'loc': 'body.repetition_detection'" in message
    assert "Input should be a dictionary or an instance of RepetitionDetectionParams" in message
