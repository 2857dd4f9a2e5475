"""`beam` constrains rendered chat requests with its template-derived structural tag
(`render/rtemplate_beam.py`); parity in tests/golden/vllm-beamgrammarrender.jsonl."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tokenfront.config import ModelOptions
from tokenfront.protocol.requests import ChatCompletionRequest, RequestValidationFailure
from tokenfront.render.chat import render_chat_request
from tokenfront.tokenization.registry import ServedModel, load_model

MODELS = Path(__file__).resolve().parents[1] / "models"
TOOL = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
BOTH = {"tool_call_parser": "beam", "enable_auto_tool_choice": True, "reasoning_parser": "beam"}


def _model(name: str, **options: Any) -> ServedModel:
    if not (MODELS / name / "tokenizer.json").exists():
        pytest.skip("shared qwen3 tokenizer not available")
    return load_model(ModelOptions(model=str(MODELS / name), served_model_name=["m"], **options))


@pytest.fixture(scope="module")
def literal() -> ServedModel:
    return _model("rtemplate-beam-literal", **BOTH)


@pytest.fixture(scope="module")
def prompt_opened() -> ServedModel:
    return _model("rtemplate-beam-literal-open", **BOTH)


def _render(model: ServedModel, **fields: Any) -> dict[str, Any]:
    body = {"messages": [{"role": "user", "content": "x"}], **fields}
    return render_chat_request(model, ChatCompletionRequest.model_validate(body), header_request_id="r")


def _tag(answer: dict[str, Any]) -> dict[str, Any] | None:
    outputs = answer["sampling_params"].get("structured_outputs")
    if not outputs or outputs.get("structural_tag") is None:
        return None
    tag: dict[str, Any] = json.loads(outputs["structural_tag"])
    return tag


def test_every_request_is_constrained_and_reasoning_ends_at_the_message_start(literal: ServedModel) -> None:
    answer = _render(literal)
    tag = _tag(answer)
    assert tag is not None and tag["type"] == "structural_tag"
    assert tag["format"]["elements"][0]["begin"] == "<think>\n"  # the tag covers the reasoning
    assert answer["reasoning_ended"] is True


def test_thinking_off_leaves_reasoning_to_the_prompt(literal: ServedModel) -> None:
    answer = _render(literal, chat_template_kwargs={"enable_thinking": False})
    tag = _tag(answer)
    assert tag is not None and tag["format"]["elements"][0]["type"] == "optional"
    assert answer["reasoning_ended"] is True  # the prompt closed it: the reasoning parser's verdict


def test_forced_tool_choice_is_served_by_the_tag(literal: ServedModel) -> None:
    tag = _tag(_render(literal, tools=[TOOL], tool_choice="required"))
    assert tag is not None and "<function=get_weather>" in json.dumps(tag)
    assert "<response>" not in json.dumps(tag)  # a forced call leaves no answer


def test_structured_output_moves_into_the_answer(literal: ServedModel) -> None:
    answer = _render(literal, response_format={"type": "json_object"})
    outputs = answer["sampling_params"]["structured_outputs"]
    assert outputs["json_object"] is None
    assert '"json_schema": {"type": "object"}, "style": "json"' in outputs["structural_tag"]


def test_a_request_structural_tag_is_left_alone(literal: ServedModel) -> None:
    own = {"type": "structural_tag", "format": {"type": "const_string", "value": "x"}}
    answer = _render(literal, response_format=own)
    assert '"const_string"' in answer["sampling_params"]["structured_outputs"]["structural_tag"]
    assert "<think>" not in answer["sampling_params"]["structured_outputs"]["structural_tag"]


def test_unspellable_names_are_rejected_on_tools(literal: ServedModel) -> None:
    bad = {"type": "function", "function": {"name": "a>b"}}
    with pytest.raises(RequestValidationFailure) as info:
        _render(literal, tools=[bad])
    assert info.value.parameter == "tools"


def test_open_reasoning_in_the_prompt_is_gated_by_the_reasoning_parser(prompt_opened: ServedModel) -> None:
    # A regex closer at the very end of the prompt is held: reasoning is still open there.
    off = {"enable_thinking": False}
    assert _tag(_render(prompt_opened, tools=[TOOL], tool_choice="required", chat_template_kwargs=off)) is not None
    tool_only = _model("rtemplate-beam-literal-open", tool_call_parser="beam", enable_auto_tool_choice=True)
    with pytest.raises(RequestValidationFailure, match="cannot guarantee required tool choice"):
        _render(tool_only, tools=[TOOL], tool_choice="required", chat_template_kwargs=off)


def test_an_answer_without_opener_only_serves_forced_calls(prompt_opened: ServedModel) -> None:
    off = {"enable_thinking": False}
    assert _tag(_render(prompt_opened, tools=[TOOL], chat_template_kwargs=off)) is None
    assert _tag(_render(prompt_opened, tools=[TOOL], tool_choice="required", chat_template_kwargs=off)) is not None


def test_regex_delimiter_templates_derive_nothing() -> None:
    beam = _model("rtemplate-beam", **BOTH)
    assert _tag(_render(beam, tools=[TOOL])) is None
    with pytest.raises(RequestValidationFailure, match="cannot guarantee named tool choice"):
        _render(beam, tools=[TOOL], tool_choice={"type": "function", "function": {"name": "get_weather"}})
