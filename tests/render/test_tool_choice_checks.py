"""Tool choices need a tool parser, and vLLM builds one only with --enable-auto-tool-choice."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tokenfront.api.errors import APIError
from tokenfront.config import ModelOptions
from tokenfront.protocol.requests import ChatCompletionRequest
from tokenfront.render.chat import check_tool_choice
from tokenfront.tokenization.registry import ServedModel, load_model

MODELS = Path(os.environ["TOKENFRONT_TEST_MODELS"])

TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]


@pytest.fixture(scope="module")
def parser_without_auto() -> ServedModel:
    return load_model(ModelOptions(model=str(MODELS / "qwen3"), tool_call_parser="hermes"))


def _request(tool_choice: object) -> ChatCompletionRequest:
    return ChatCompletionRequest.model_validate(
        {
            "messages": [{"role": "user", "content": "hi"}],
            "tools": TOOLS,
            "tool_choice": tool_choice,
        }
    )


@pytest.mark.parametrize(
    ("tool_choice", "message"),
    [
        ("auto", '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser'),
        ("required", 'tool_choice="required" requires --tool-call-parser to be set'),
        (
            {"type": "function", "function": {"name": "get_weather"}},
            'tool_choice=function "get_weather" requires --tool-call-parser to be set',
        ),
    ],
)
def test_a_tool_parser_without_auto_tool_choice_refuses_tool_choices(
    parser_without_auto: ServedModel, tool_choice: object, message: str
) -> None:
    with pytest.raises(APIError) as info:
        check_tool_choice(parser_without_auto, _request(tool_choice))
    assert message in str(info.value.message)


def test_tool_choice_none_needs_no_parser(parser_without_auto: ServedModel) -> None:
    check_tool_choice(parser_without_auto, _request("none"))


def test_auto_tool_choice_with_a_parser_is_accepted(qwen3_hermes: ServedModel) -> None:
    for choice in ("auto", "required", {"type": "function", "function": {"name": "get_weather"}}):
        check_tool_choice(qwen3_hermes, _request(choice))
