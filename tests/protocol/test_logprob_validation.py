"""Logprob entries validate as plain dicts, yet a bad body fails with vLLM's model errors."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from tokenfront.protocol.generate import CHAT_BODY, COMPLETION_BODY


def _chat(content: object) -> dict[str, object]:
    choice = {"index": 0, "token_ids": [1], "logprobs": {"content": content}}
    return {"generate_response": {"choices": [choice]}}


def test_valid_entries_are_plain_dicts_with_their_optional_keys_absent() -> None:
    body = CHAT_BODY.validate_python(
        _chat(
            [{"token_id": 7, "logprob": -0.5, "top_logprobs": [{"token_id": 7, "logprob": -0.5}]}]
        )
    )
    entry = body.generate_response.choices[0].logprobs.content[0]
    assert entry == {
        "token_id": 7,
        "logprob": -0.5,
        "top_logprobs": [{"token_id": 7, "logprob": -0.5}],
    }


@pytest.mark.parametrize(
    ("content", "error_type", "message"),
    [
        ([1], "model_type", "valid dictionary or instance of GenerateLogProbsContent"),
        ([{"token_id": 1, "logprob": -1, "top_logprobs": [3]}], "model_type", "GenerateLogProb"),
        ([{"logprob": -1}], "missing", "Field required"),
        ([{"token_id": "a", "logprob": -1}], "int_parsing", "valid integer"),
    ],
)
def test_invalid_entries_report_the_model_classes_errors(
    content: object, error_type: str, message: str
) -> None:
    with pytest.raises(ValidationError) as info:
        CHAT_BODY.validate_python(_chat(content))
    first = info.value.errors()[0]
    assert first["type"] == error_type and message in first["msg"]
    assert first["loc"][:2] == ("DerenderChatRequest", "generate_response")


def test_completion_bodies_use_the_same_rule() -> None:
    body = {"generate_responses": [_chat([1])["generate_response"]]}
    with pytest.raises(ValidationError) as info:
        COMPLETION_BODY.validate_python(body)
    assert "GenerateLogProbsContent" in info.value.errors()[0]["msg"]
