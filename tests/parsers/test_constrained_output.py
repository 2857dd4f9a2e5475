"""Constrained output (JSON `response_format`, `structured_outputs`) under kimi_k2's reasoning
parser, which reads unmarked text as reasoning: the output is content unless it opens with
`<think>` (vLLM's kimi_k2 reasoning tests after 0.33.0; the vectors are in
`vllm_vectors/kimi_k2.versions.json`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tokenfront.config import ModelOptions, ServerSettings
from tokenfront.derender.chat import derender_chat
from tokenfront.parsers.base import ParseContext
from tokenfront.parsers.engines.constrained_output import constrained_output, read_opening
from tokenfront.protocol.generate import DerenderChatRequest
from tokenfront.tokenization.registry import ServedModel, load_model


@pytest.mark.parametrize(
    ("extra", "constrained"),
    [
        ({"response_format": {"type": "json_object"}}, True),
        ({"response_format": {"type": "json_schema", "json_schema": {"name": "a"}}}, True),
        ({"structured_outputs": {"choice": ["ok"]}}, True),
        ({"structured_outputs": {"regex": "a+"}}, True),
        ({"response_format": {"type": "text"}}, False),
        ({"response_format": {"type": "structural_tag", "format": {}}}, False),
        ({"structured_outputs": {"structural_tag": "{}", "json_object": None}}, False),
        ({}, False),
    ],
)
def test_which_requests_constrain_the_output(extra: dict[str, Any], constrained: bool) -> None:
    assert constrained_output(ParseContext(extra=extra)) is constrained


@pytest.mark.parametrize(
    ("text", "opening"),
    [
        ("", "hold"),
        ("  ", "hold"),
        ("<", "hold"),
        ("  <thi", "hold"),
        ("<think>", "hold"),
        ("</th", "hold"),
        ("</think>", "hold"),
        ("<think>x", "think"),
        ("\n<think></think>{}", "think"),
        ("<ok", "content"),
        ('{"a": 1}', "content"),
        ("</think>x", "content"),
        ("hello <think>", "content"),
    ],
)
def test_the_start_of_the_output_decides_how_it_reads(text: str, opening: str) -> None:
    assert read_opening(text, "<think>", "</think>") == opening


@pytest.fixture(scope="module")
def kimi() -> ServedModel:
    path = Path(os.environ["TOKENFRONT_TEST_MODELS"]) / "synthetic-multi"
    if not path.is_dir():
        pytest.skip(f"shared model {path} not available")
    options = ModelOptions(
        model=str(path),
        served_model_name=["synthetic"],
        tool_call_parser="kimi_k2",
        enable_auto_tool_choice=True,
        reasoning_parser="kimi_k2",
    )
    return load_model(options)


def _message(model: ServedModel, text: str, **chat: Any) -> dict[str, Any]:
    ids = model.tokenizer.encode(text, add_special_tokens=False)
    request = DerenderChatRequest.model_validate(
        {
            "generate_response": {"request_id": "g", "choices": [{"index": 0, "token_ids": ids}]},
            "chat_request": {"messages": [{"role": "user", "content": "hi"}], **chat},
        }
    )
    out = derender_chat(model, request, ServerSettings(stream_state_key=["k"]))
    message: dict[str, Any] = out["choices"][0]["message"]
    return message


def test_json_response_format_output_is_content(kimi: ServedModel) -> None:
    message = _message(kimi, '{"answer": 42}', response_format={"type": "json_object"})
    assert (message["reasoning"], message["content"]) == (None, '{"answer": 42}')


def test_choice_constrained_output_is_content(kimi: ServedModel) -> None:
    message = _message(kimi, "ok", structured_outputs={"choice": ["ok"]})
    assert (message["reasoning"], message["content"]) == (None, "ok")


def test_constrained_output_still_reads_an_explicit_think_block(kimi: ServedModel) -> None:
    text = '<think>hidden</think>{"answer": 42}'
    message = _message(kimi, text, response_format={"type": "json_object"})
    assert (message["reasoning"], message["content"]) == ("hidden", '{"answer": 42}')


def test_unconstrained_output_stays_reasoning(kimi: ServedModel) -> None:
    message = _message(kimi, '{"answer": 42}', response_format={"type": "text"})
    assert (message["reasoning"], message["content"]) == ('{"answer": 42}', None)
