"""Requests whose template kwargs keep vLLM from building the configured parsers: 400s where
vLLM builds them (render, derender one-shot per choice, derender stream), nothing elsewhere."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from tokenfront.api.app import create_app
from tokenfront.config import ModelOptions, ServerSettings
from tokenfront.tokenization.registry import ModelRegistry, load_model

MODELS = Path(os.environ["TOKENFRONT_TEST_MODELS"])
RENDER = "/v1/chat/completions/render"
DERENDER = "/v1/chat/completions/derender"
TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]


def _app(**parsers: Any) -> Any:
    path = MODELS / "qwen3"
    if not path.is_dir():
        pytest.skip("shared qwen3 model not available")
    model = load_model(ModelOptions(model=str(path), served_model_name=["qwen3"], **parsers))
    return TestClient(create_app(ModelRegistry([model]), ServerSettings(stream_state_key=["k"])))


def call(client: TestClient, path: str, body: dict[str, Any]) -> Any:
    return client.post(path, json=body)


@pytest.fixture(scope="module")
def qwen3_reasoning() -> Any:
    return _app(reasoning_parser="qwen3", tool_call_parser="hermes", enable_auto_tool_choice=True)


@pytest.fixture(scope="module")
def qwen3_coder() -> Any:
    return _app(tool_call_parser="qwen3_coder", enable_auto_tool_choice=True)


@pytest.fixture(scope="module")
def hermes_only() -> Any:
    return _app(tool_call_parser="hermes", enable_auto_tool_choice=True)


def _chat(switch: Any, **extra: Any) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": "hi"}],
            "chat_template_kwargs": {"enable_thinking": switch}, **extra}


def _error(response: Any) -> tuple[int, str, str]:
    error = response.json()["error"]
    return response.status_code, error["type"], error["message"]


@pytest.mark.parametrize(("switch", "kind"), [([1], "list"), ({"a": 1}, "dict")])
def test_a_list_or_object_thinking_switch_fails_where_vllm_builds_a_cached_grammar(
    qwen3_reasoning: Any, switch: Any, kind: str
) -> None:
    expected = (400, "BadRequestError", f"unhashable type: '{kind}'")
    assert _error(call(qwen3_reasoning, RENDER, _chat(switch))) == expected
    body = {"chat_request": _chat(switch), "generate_response": {"choices": [{"index": 0, "token_ids": [9707]}]}}
    assert _error(call(qwen3_reasoning, DERENDER, body)) == expected
    stream = {"chat_request": _chat(switch), "prompt_token_ids": [9707], "stream": True,
              "generate_chunk": {"choices": [{"index": 0, "token_ids": [9707]}]}}
    assert _error(call(qwen3_reasoning, DERENDER, stream)) == (
        400, "BadRequestError", "invalid stream_state: derender failed"
    )


def test_a_tool_parser_alone_is_built_at_render_only_for_a_tool_choice_other_than_none(
    qwen3_coder: Any,
) -> None:
    assert call(qwen3_coder, RENDER, _chat([1])).status_code == 200
    assert call(qwen3_coder, RENDER, _chat([1], tools=TOOLS, tool_choice="none")).status_code == 200
    assert _error(call(qwen3_coder, RENDER, _chat([1], tools=TOOLS)))[2] == "unhashable type: 'list'"
    body = {"chat_request": _chat([1]), "generate_response": {"choices": [{"index": 0, "token_ids": [9707]}]}}
    assert _error(call(qwen3_coder, DERENDER, body))[2] == "unhashable type: 'list'"


def test_parsers_without_a_cached_grammar_take_any_switch(hermes_only: Any) -> None:
    body = {"chat_request": _chat([1], tools=TOOLS),
            "generate_response": {"choices": [{"index": 0, "token_ids": [9707]}]}}
    assert call(hermes_only, DERENDER, body).status_code == 200
    assert call(hermes_only, RENDER, _chat([1], tools=TOOLS)).status_code == 200
