"""Request models accept/reject like vLLM: before-checks are BadRequestError, types are Bad Request."""

from __future__ import annotations

import pytest

from tokenfront.api.body import parse_model
from tokenfront.api.errors import APIError
from tokenfront.protocol.requests import ChatCompletionRequest, CompletionRequest

MSGS = [{"role": "user", "content": "hi"}]


def test_unknown_fields_kept() -> None:
    req = ChatCompletionRequest.model_validate({"messages": MSGS, "whatever": 1})
    assert req.model_extra == {"whatever": 1}


def test_tools_default_tool_choice_auto() -> None:
    req = ChatCompletionRequest.model_validate(
        {"messages": MSGS, "tools": [{"type": "function", "function": {"name": "f"}}]}
    )
    assert req.tool_choice == "auto"


@pytest.mark.parametrize(
    ("extra", "param"),
    [
        ({"tools": []}, "tools"),
        ({"top_logprobs": 3}, "top_logprobs"),
        ({"top_logprobs": "3", "logprobs": True}, "top_logprobs"),
        ({"stream_options": {"include_usage": True}}, "stream_options"),
        ({"tool_choice": "required"}, "tool_choice"),
        ({"cache_salt": "a/b"}, "cache_salt"),
    ],
)
def test_before_checks_are_bad_request_errors(extra: dict, param: str) -> None:
    with pytest.raises(APIError) as err:
        ChatCompletionRequest.model_validate({"messages": MSGS, **extra})
    assert err.value.err_type == "BadRequestError"
    assert err.value.param == param


def test_named_tool_must_exist() -> None:
    with pytest.raises(APIError, match="does not match"):
        ChatCompletionRequest.model_validate(
            {
                "messages": MSGS,
                "tools": [{"type": "function", "function": {"name": "f"}}],
                "tool_choice": {"type": "function", "function": {"name": "g"}},
            }
        )


def test_named_tool_choice_over_a_tool_without_function_is_a_400() -> None:
    # vLLM 0.33.0 lets the KeyError escape as a 500 (docs/deviations.md)
    with pytest.raises(APIError, match="KeyError") as err:
        ChatCompletionRequest.model_validate(
            {
                "messages": MSGS,
                "tools": [{"type": "function"}],
                "tool_choice": {"type": "function", "function": {"name": "g"}},
            }
        )
    assert err.value.status == 400 and err.value.param == "tools"


@pytest.mark.parametrize(
    "messages",
    [
        [{"content": "x"}],
        [{"role": "user", "content": 5}],
        [{"role": "user", "content": None}],
        [{"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": "{}"}}]}],
    ],
)
def test_message_schema_errors_are_bad_request(messages: list) -> None:
    with pytest.raises(APIError) as err:
        parse_model(ChatCompletionRequest, {"messages": messages})
    assert err.value.err_type == "Bad Request"


@pytest.mark.parametrize(("messages", "kind"), [(5, "int"), (None, "NoneType"), (1.5, "float")])
def test_messages_that_cannot_be_iterated_fail_before_field_validation(messages: object, kind: str) -> None:
    # vLLM's system-message check walks `messages` first: Python's TypeError, a BadRequestError
    with pytest.raises(APIError) as err:
        ChatCompletionRequest.model_validate({"messages": messages})
    assert err.value.err_type == "BadRequestError"
    assert err.value.message == f"'{kind}' object is not iterable"


@pytest.mark.parametrize(("part_type", "kind"), [([1], "list"), ({"a": 1}, "dict")])
def test_a_system_part_type_that_cannot_be_hashed_fails_before_field_validation(
    part_type: object, kind: str
) -> None:
    # vLLM's once-only warning about non-text system parts caches its arguments; a later
    # message that is no object is not reached
    messages = [{"role": "system", "content": [{"type": part_type, "text": "x"}]}, 1e308]
    with pytest.raises(APIError) as err:
        ChatCompletionRequest.model_validate({"messages": messages})
    assert (err.value.err_type, err.value.message) == ("BadRequestError", f"unhashable type: '{kind}'")


@pytest.mark.parametrize(
    "message",
    [
        {"role": "system", "content": [{"type": [], "text": "x"}]},  # falsy: no warning
        {"role": "user", "content": [{"type": [1], "text": "x"}]},  # not a system message
    ],
)
def test_other_unhashable_part_types_are_left_to_the_lazy_content_validation(message: dict) -> None:
    # content parts are validated when the render reads them (a BadRequestError of their own)
    request = ChatCompletionRequest.model_validate({"messages": [message]})
    assert request.messages[0]["role"] == message["role"]


@pytest.mark.parametrize(("tool_calls", "kind"), [(5, "int"), (1.5, "float"), (True, "bool")])
def test_assistant_tool_calls_that_cannot_be_listed_fail_with_pythons_text(tool_calls: object, kind: str) -> None:
    with pytest.raises(APIError) as err:
        ChatCompletionRequest.model_validate(
            {"messages": [{"role": "assistant", "content": "x", "tool_calls": tool_calls}]}
        )
    assert (err.value.err_type, err.value.message) == ("BadRequestError", f"'{kind}' object is not iterable")


@pytest.mark.parametrize(
    ("message", "valid"),
    [
        ({"role": "tool", "content": "r", "tool_call_id": 5}, False),
        ({"role": "tool", "content": "r", "tool_call_id": None}, True),
        ({"role": "user", "content": "r", "tool_call_id": 5}, True),  # the user schema ignores it
        ({"role": "critic", "content": "r", "reasoning": 5}, False),
        ({"role": "critic", "content": "r", "task": ["t"]}, False),
        ({"role": "critic", "content": "r", "tools": 5}, False),
        ({"role": "user", "content": "r", "reasoning": 5}, True),
        ({"role": "critic", "content": [{}, "s"]}, True),  # parts are judged when rendering
        ({"role": "critic", "content": [5]}, False),
    ],
)
def test_message_fields_are_typed_by_the_schema_that_takes_the_role(message: dict, valid: bool) -> None:
    if valid:
        ChatCompletionRequest.model_validate({"messages": [message]})
        return
    with pytest.raises(APIError) as err:
        parse_model(ChatCompletionRequest, {"messages": [message]})
    assert err.value.err_type == "Bad Request"


def test_tokenize_messages_get_the_chat_message_schema_checks() -> None:
    from tokenfront.api.routes.tokenize import _parse_tokenize

    for messages in ([{"role": "user", "content": 1.5}], [{"role": 1, "content": "x"}]):
        with pytest.raises(APIError) as err:
            _parse_tokenize({"messages": messages})
        assert err.value.err_type == "Bad Request"
    # the body union: a valid prompt beside a bad chat still tokenizes the prompt
    body = _parse_tokenize({"prompt": "hi", "messages": [{"role": "user", "content": 1.5}]})
    assert type(body).__name__ == "TokenizeCompletionRequest"


def test_completion_prompt_checks() -> None:
    with pytest.raises(APIError, match="prompt"):
        CompletionRequest.model_validate({"prompt": ""})
    req = CompletionRequest.model_validate({"prompt": [[1, 2], [3]], "max_tokens": None})
    assert req.max_tokens == 16


def test_request_ids_are_16_hex_digits_and_differ_in_forked_workers() -> None:
    import os

    from tokenfront.protocol.requests import new_request_id

    assert len(new_request_id()) == 16 and int(new_request_id(), 16) >= 0
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: the random module reseeds after fork
        os.write(write, new_request_id().encode())
        os._exit(0)
    os.waitpid(pid, 0)
    child_id = os.read(read, 16).decode()
    assert child_id != new_request_id()
