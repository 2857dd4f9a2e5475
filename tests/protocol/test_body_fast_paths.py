"""The derender body's fast paths (one union member chosen on `stream`, prompt ids checked as
exact ints) give the same bodies and the same errors as the declared types."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pydantic import NonNegativeInt, TypeAdapter, ValidationError, create_model

from tokenfront.api.errors import validation_error
from tokenfront.protocol.generate import (
    CHAT_BODY,
    COMPLETION_BODY,
    DerenderChatRequest,
    DerenderChatStreamRequest,
    DerenderCompletionRequest,
    DerenderCompletionStreamRequest,
    GenerateTokensResponse,
    GenerateTokensStreamResponse,
)

Ids = list[NonNegativeInt] | None


def _twin(cls: type, **fields: Any) -> Any:
    return create_model(cls.__name__, __base__=cls, __module__=cls.__module__, **fields)


# The bodies as declared before the fast paths: a plain smart union, prompt ids with the
# per-item constraint.
_RESPONSE = _twin(GenerateTokensResponse, prompt_token_ids=(Ids, None))
_CHUNK = _twin(GenerateTokensStreamResponse, prompt_token_ids=(Ids, None))
REFERENCE_CHAT = TypeAdapter(
    _twin(DerenderChatRequest, prompt_token_ids=(Ids, None), generate_response=(_RESPONSE, ...))
    | _twin(DerenderChatStreamRequest, prompt_token_ids=(Ids, None), generate_chunk=(_CHUNK, ...))
)
REFERENCE_COMPLETION = TypeAdapter(
    _twin(
        DerenderCompletionRequest,
        prompt_token_ids=(list[Ids] | None, None),
        generate_responses=(list[_RESPONSE], ...),  # type: ignore[valid-type]
    )
    | _twin(
        DerenderCompletionStreamRequest, prompt_token_ids=(Ids, None), generate_chunk=(_CHUNK, ...)
    )
)

_CHAT_REQUEST = {
    "model": "m",
    "request_id": "c",
    "messages": [{"role": "user", "content": "hi", "reasoning_content": "r"}],
    "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],
}
BAD_IDS: list[Any] = [
    [1, -2, 3],
    [1, 2.0, 3],
    [1, 2.5],
    [True, 0],
    ["7", 8],
    ["x"],
    [None],
    [1, [2]],
    [2**70, -1],
    "123",
    (1, 2),
    {"a": 1},
    7,
]
GOOD_IDS: list[Any] = [[], [0], [5, 0, 151645], [2**40], None]


def _chat_bodies() -> list[dict[str, Any]]:
    plain = {
        "model": "m",
        "generate_response": {"request_id": "r", "choices": [{"index": 0, "token_ids": [1, 2]}]},
        "prompt_token_ids": [3, 4],
        "chat_request": _CHAT_REQUEST,
    }
    stream = {
        "stream": True,
        "generate_chunk": {"request_id": "r", "choices": [{"index": 0, "token_ids": [1]}]},
        "prompt_token_ids": [3],
        "chat_request": _CHAT_REQUEST,
    }
    bodies: list[dict[str, Any]] = []
    for base in (plain, stream):
        for stream_value in ("absent", False, True, None, 0, 1, "false", "true"):
            body = copy.deepcopy(base)
            if stream_value == "absent":
                body.pop("stream", None)
            else:
                body["stream"] = stream_value
            bodies.append(body)
            for ids in [*BAD_IDS, *GOOD_IDS]:
                with_ids = copy.deepcopy(body)
                with_ids["prompt_token_ids"] = ids
                bodies.append(with_ids)
                inner = copy.deepcopy(body)
                key = "generate_chunk" if "generate_chunk" in inner else "generate_response"
                inner[key]["prompt_token_ids"] = ids
                bodies.append(inner)
            bad_choice = copy.deepcopy(body)
            key = "generate_chunk" if "generate_chunk" in bad_choice else "generate_response"
            bad_choice[key]["choices"][0]["token_ids"] = [1, -1]
            bodies.append(bad_choice)
            no_model = copy.deepcopy(body)
            no_model["model"] = 5
            bodies.append(no_model)
    return bodies


def _outcome(adapter: Any, body: Any) -> Any:
    try:
        return ("ok", adapter.validate_python(copy.deepcopy(body)).model_dump())
    except ValidationError as exc:
        return ("error", validation_error(exc).body())


@pytest.mark.parametrize("body", _chat_bodies())
def test_chat_bodies_validate_as_declared(body: dict[str, Any]) -> None:
    assert _outcome(CHAT_BODY, body) == _outcome(REFERENCE_CHAT, body)


@pytest.mark.parametrize("ids", [*BAD_IDS, *GOOD_IDS, [[1, 2], None, [3, -1]], [[1.0]], [[]]])
def test_completion_prompt_ids_validate_as_declared(ids: Any) -> None:
    response = {"request_id": "r", "choices": [{"index": 0, "token_ids": [1]}]}
    for body in (
        {"generate_responses": [response], "prompt_token_ids": ids},
        {"generate_responses": [response], "prompt_token_ids": [ids]},
        {"stream": True, "generate_chunk": response, "prompt_token_ids": ids},
    ):
        assert _outcome(COMPLETION_BODY, body) == _outcome(REFERENCE_COMPLETION, body)


def test_the_chosen_member_is_the_unions_choice() -> None:
    plain = CHAT_BODY.validate_python(_chat_bodies()[0])
    assert type(plain) is DerenderChatRequest
    assert plain.prompt_token_ids == [3, 4]
    streamed = CHAT_BODY.validate_python(
        {"stream": True, "generate_chunk": {"choices": [{"index": 0}]}, "prompt_token_ids": [9]}
    )
    assert type(streamed) is DerenderChatStreamRequest
    assert streamed.prompt_token_ids == [9]
