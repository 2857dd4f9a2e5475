"""cohere_command3 / cohere_command4 render adjustments (vLLM's `CohereCommandParser.adjust_request`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tokenfront.api.errors import APIError
from tokenfront.config import ModelOptions
from tokenfront.protocol.requests import ChatCompletionRequest, RequestValidationFailure
from tokenfront.render.adjust import adjust_request
from tokenfront.tokenization.registry import ServedModel, load_model

MODEL = Path(__file__).resolve().parents[1] / "models" / "cohere-synth"
SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"}}}
TOOL = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}


@pytest.fixture(scope="module")
def cohere() -> ServedModel:
    if not (MODEL / "tokenizer.json").exists():
        pytest.skip("shared qwen3 tokenizer not available")
    options = ModelOptions(model=str(MODEL), served_model_name=["m"], tool_call_parser="cohere_command3",
                           enable_auto_tool_choice=True, reasoning_parser="cohere_command3")
    return load_model(options)


def _request(**fields: Any) -> ChatCompletionRequest:
    return ChatCompletionRequest.model_validate({"messages": [{"role": "user", "content": "x"}], **fields})


def test_special_tokens_always_kept(cohere: ServedModel) -> None:
    request = _request(skip_special_tokens=True)
    adjust_request(cohere, request, [1])
    assert request.skip_special_tokens is False
    assert request.structured_outputs is None


@pytest.mark.parametrize(
    "fields",
    [
        {"response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": SCHEMA}}},
        {"structured_outputs": {"json": SCHEMA}},
        {"structured_outputs": {"json": json.dumps(SCHEMA)}},
    ],
)
def test_schema_becomes_a_response_tag(cohere: ServedModel, fields: dict[str, Any]) -> None:
    request = _request(**fields)
    adjust_request(cohere, request, [1])
    assert request.response_format is None
    assert request.structured_outputs is not None and request.structured_outputs.structural_tag is not None
    tag = json.loads(request.structured_outputs.structural_tag)
    assert tag == {
        "type": "structural_tag",
        "format": {
            "type": "triggered_tags",
            "triggers": ["<|START_RESPONSE|>"],
            "tags": [{"begin": "<|START_RESPONSE|>", "content": {"type": "json_schema", "json_schema": SCHEMA},
                      "end": "<|END_RESPONSE|>"}],
        },
    }


def test_other_architectures_are_refused(cohere: ServedModel) -> None:
    model = cohere.__class__(**{**cohere.__dict__, "hf_config": {**cohere.hf_config, "architectures": ["Qwen3ForCausalLM"]}})
    with pytest.raises(RequestValidationFailure, match="does not support Cohere command structural tags"):
        adjust_request(model, _request(tools=[TOOL]), [1])
    request = _request()
    adjust_request(model, request, [1])
    assert request.skip_special_tokens is False


def _tag(request: ChatCompletionRequest) -> dict[str, Any]:
    assert request.structured_outputs is not None and request.structured_outputs.structural_tag
    return json.loads(request.structured_outputs.structural_tag)  # type: ignore[no-any-return]


@pytest.mark.parametrize("choice", ["auto", "none", "required", {"type": "function", "function": {"name": "f"}}])
def test_tools_become_an_action_grammar(cohere: ServedModel, choice: Any) -> None:
    request = _request(tools=[TOOL], tool_choice=choice)
    adjust_request(cohere, request, [1])
    tag = _tag(request)
    assert tag["format"]["triggers"] == ["<|START_ACTION|>"]
    (action,) = tag["format"]["tags"]
    assert action["end"] == "<|END_ACTION|>" and action["content"]["type"] == "grammar"
    grammar = action["content"]["grammar"]
    assert grammar.startswith('root ::= tools\n    tools ::= ws "[" ws tool (ws "," ws tool)* ws "]" ws\n')
    assert "    tool ::= f\n    f ::= froot\nfbasic_escape ::= " in grammar
    assert 'froot_prop_1 ::= (("\\"f\\""))' in grammar
    assert grammar.endswith("\n    ")


def test_schema_and_tools_share_one_tag(cohere: ServedModel) -> None:
    request = _request(tools=[TOOL], response_format={"type": "json_object"})
    adjust_request(cohere, request, [1])
    assert request.response_format is None
    assert _tag(request)["format"]["triggers"] == ["<|START_RESPONSE|>", "<|START_ACTION|>"]


def test_tool_schema_xgrammar_rejects_is_a_400(cohere: ServedModel) -> None:
    bad = {"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"n": {"type": "integer", "minimum": 3, "maximum": 1}}}}}
    with pytest.raises(APIError) as caught:
        adjust_request(cohere, _request(tools=[bad]), [1])
    assert caught.value.status == 400 and caught.value.err_type == "BadRequestError"
    assert caught.value.message.endswith(": Invalid range: minimum greater than maximum")
    assert caught.value.param == "tools"


def test_tool_schema_outside_the_subset_gets_no_tag(cohere: ServedModel) -> None:
    bounded = {"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"n": {"type": "integer"}}, "minProperties": 1}}}
    request = _request(tools=[bounded])
    adjust_request(cohere, request, [1])
    assert request.structured_outputs is None and request.skip_special_tokens is False
