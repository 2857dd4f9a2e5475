"""Which of vLLM's chat message schemas takes a message (`protocol.message_schemas`).

The fixture holds messages with what vLLM 0.33.0 did with them, recorded in its venv through
its `ChatCompletionRequest` (`chat_request`: its before-validator renames `reasoning_content`
and lists `tool_calls`, its after-validator walks lazily validated tool calls) and through a
bare `TypeAdapter(ChatCompletionMessageParam)` (`tokenize`, whose request has neither):
`err` (a validation error), `exc` (a 400 raised while validating, e.g. `list(5)`),
`render-fail` (content parts or tool calls kept as an iterator whose walk fails when
rendering) or `ok`.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from tokenfront.api.errors import APIError
from tokenfront.protocol.message_schemas import (
    lazy_parts_fail,
    lazy_tool_calls_fail,
    validated_lazily,
)
from tokenfront.protocol.requests import ChatCompletionRequest, check_message_shape

FIXTURE = Path(__file__).parent / "fixtures" / "message_union_vllm033.jsonl"
CASES = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]


def _walk(msg: dict[str, Any], *, tool_calls: bool) -> str:
    fails = validated_lazily(msg) and lazy_parts_fail(msg["role"], msg["content"])
    return "render-fail" if fails or (tool_calls and lazy_tool_calls_fail(msg)) else "ok"


def chat_request_outcome(msg: dict[str, Any]) -> str:
    try:
        request = ChatCompletionRequest.model_validate({"model": "m", "messages": [msg]})
    except ValidationError:
        return "err"
    except APIError as exc:
        return "err" if exc.err_type == "Bad Request" else "exc"
    return _walk(request.messages[0], tool_calls=False)


def tokenize_outcome(msg: dict[str, Any]) -> str:
    try:
        check_message_shape(0, msg, tool_calls_walked=False)
    except APIError:
        return "err"
    return _walk(msg, tool_calls=True)


@pytest.mark.parametrize("case", CASES, ids=[f"{i}-{c['message']['role']}" for i, c in enumerate(CASES)])
def test_message_takes_the_schema_vllm_picks(case: dict[str, Any]) -> None:
    assert chat_request_outcome(copy.deepcopy(case["message"])) == case["chat_request"]
    assert tokenize_outcome(copy.deepcopy(case["message"])) == case["tokenize"]


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        # a tool message without a string tool_call_id only fits the custom schema
        ({"role": "tool", "content": ["a"]}, "ok"),
        ({"role": "tool", "content": ["a"], "tool_call_id": "c"}, "render-fail"),
        # a custom-only key set (even to null) makes the custom schema set more fields
        ({"role": "assistant", "content": [{"type": "text"}], "reasoning": None}, "ok"),
        ({"role": "assistant", "content": [{"type": "text"}]}, "render-fail"),
        # ... unless its value breaks that schema: the openai one then walks the parts
        (
            {"role": "assistant", "content": [{"type": "text", "text": 5}], "reasoning": True},
            "render-fail",
        ),
        # a well-formed part's fields count for the custom schema
        ({"role": "user", "content": [{"type": "text", "text": "x"}, {"type": "text"}]}, "ok"),
        ({"role": "user", "content": [{"type": "image_url", "image_url": {"u": 1}}]}, "render-fail"),
        # tool calls only the openai assistant schema has; other roles' schemas ignore them
        ({"role": "user", "content": "x", "tool_calls": [{"id": 5}]}, "ok"),
        ({"role": "assistant", "content": "x", "tool_calls": [{"id": 5}]}, "render-fail"),
        # a part whose type is no string fails the walk (vLLM's literal_error), no crash
        ({"role": "user", "content": [{"type": {}, "text": "x"}]}, "render-fail"),
        # null tool calls break the openai assistant schema
        ({"role": "assistant", "content": None, "tool_calls": None}, "err"),
    ],
)
def test_measured_union_rules(message: dict[str, Any], expected: str) -> None:
    assert tokenize_outcome(message) == expected
