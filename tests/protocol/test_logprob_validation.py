"""Logprob entries validate as plain dicts, yet a bad body fails with vLLM's model errors."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter, ValidationError

from tokenfront.protocol.generate import CHAT_BODY, COMPLETION_BODY, LogprobPosition


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
        # FastAPI validates vLLM's bodies with from_attributes: a value that is no object is
        # `model_attributes_type`, and the message names no class
        ([1], "model_attributes_type", "valid dictionary or object to extract fields from"),
        ([{"token_id": 1, "logprob": -1, "top_logprobs": [3]}], "model_attributes_type", "object"),
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
    assert info.value.errors()[0]["type"] == "model_attributes_type"


def _entry_variants() -> list[object]:
    good = {"token_id": 7, "logprob": -0.5, "rank": 1}
    return [
        good,
        {"token_id": 7, "logprob": -0.5},
        {"token_id": 7, "logprob": -0.5, "rank": None},
        {"token_id": 7, "logprob": -0.5, "extra": "kept"},
        {"token_id": 7, "logprob": 0},  # int logprob: validation makes it 0.0
        {"token_id": True, "logprob": -0.5},
        {"token_id": "7", "logprob": -0.5},
        {"token_id": 7.0, "logprob": -0.5},
        {"token_id": 7, "logprob": -0.5, "rank": "1"},
        {"token_id": 7, "logprob": -0.5, "rank": 1.5},
        {"token_id": 7},
        {"logprob": -0.5},
        [7, -0.5],
        None,
    ]


@pytest.mark.parametrize("variant", range(len(_entry_variants())))
@pytest.mark.parametrize("where", ["position", "candidate"])
@pytest.mark.parametrize("tops", ["list", "absent", "none"])
def test_entries_kept_as_parsed_only_when_validation_would_not_change_them(
    variant: int, where: str, tops: str
) -> None:
    """The fast path keeps exactly the entries the dict schema accepts unchanged (extra keys
    aside); everything else gets the full validation, coercions and errors included."""
    good = {"token_id": 3, "logprob": -1.5}
    entry = _entry_variants()[variant]
    if where == "position":
        position = dict(entry) if isinstance(entry, dict) else entry
        candidates = [good]
    else:
        position = dict(good)
        candidates = [good, entry]
    if isinstance(position, dict):
        if tops == "list":
            position["top_logprobs"] = candidates
        elif tops == "none":
            position["top_logprobs"] = None
    content = [dict(good), position]
    reference = TypeAdapter(list[LogprobPosition] | None)
    try:
        expected: object = reference.validate_python(content)
    except ValidationError:
        expected = None
    try:
        body = CHAT_BODY.validate_python(_chat(content))
    except ValidationError:
        assert expected is None
        return
    got = body.generate_response.choices[0].logprobs.content
    assert expected is not None
    assert _strip_extra(got) == expected
    assert [type(e["logprob"]) for e in got] == [float, float]


def _strip_extra(value: object) -> object:
    if isinstance(value, list):
        return [_strip_extra(v) for v in value]
    if isinstance(value, dict):
        keep = {"token_id", "logprob", "rank", "top_logprobs"}
        return {k: _strip_extra(v) for k, v in value.items() if k in keep}
    return value


def test_a_bad_dict_stream_state_reports_only_vllms_errors() -> None:
    # the signed-string form must not add a "valid string" error to vLLM's list
    chunk = {"choices": [{"index": 0, "token_ids": [1]}]}
    with pytest.raises(ValidationError) as info:
        CHAT_BODY.validate_python(
            {"stream": True, "generate_chunk": chunk, "stream_state": {"prefix_offset": -1}}
        )
    types = [e["type"] for e in info.value.errors()]
    assert "string_type" not in types and "greater_than_equal" in types


def test_a_signed_stream_state_string_is_kept_as_is() -> None:
    chunk = {"choices": [{"index": 0, "token_ids": [1]}]}
    body = CHAT_BODY.validate_python({"stream": True, "generate_chunk": chunk, "stream_state": "abc"})
    assert body.stream_state == "abc"
