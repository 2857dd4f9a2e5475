"""hf / beam render adjustments (vLLM's response-template `adjust_request`); parity in
tests/golden/vllm-rtemplaterender.jsonl."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tokenfront.config import ModelOptions
from tokenfront.protocol.requests import ChatCompletionRequest, RequestValidationFailure
from tokenfront.render import rtemplate_adjust
from tokenfront.render.adjust import adjust_request
from tokenfront.tokenization.registry import ServedModel, load_model

MODEL = Path(__file__).resolve().parents[1] / "models" / "rtemplate-hf"
TOOL = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}


def _model(**options: Any) -> ServedModel:
    if not (MODEL / "tokenizer.json").exists():
        pytest.skip("shared qwen3 tokenizer not available")
    return load_model(ModelOptions(model=str(MODEL), served_model_name=["m"], **options))


@pytest.fixture(scope="module")
def hf_tools() -> ServedModel:
    return _model(tool_call_parser="hf", enable_auto_tool_choice=True, reasoning_parser="hf")


def _request(**fields: Any) -> ChatCompletionRequest:
    return ChatCompletionRequest.model_validate({"messages": [{"role": "user", "content": "x"}], **fields})


def test_every_request_keeps_special_tokens_unspaced(hf_tools: ServedModel) -> None:
    request = _request(skip_special_tokens=True, tool_choice="none")
    adjust_request(hf_tools, request, [1])
    assert request.skip_special_tokens is False
    assert request.spaces_between_special_tokens is False


@pytest.mark.parametrize(
    ("fields", "parameter"),
    [
        ({"tools": [{**TOOL, "function": {**TOOL["function"], "strict": True}}]}, "tools"),
        ({"tools": [TOOL], "tool_choice": "required"}, "tool_choice"),
        ({"tools": [TOOL], "tool_choice": {"type": "function", "function": {"name": "f"}}}, "tool_choice"),
        ({"tools": [TOOL], "parallel_tool_calls": False}, "parallel_tool_calls"),
    ],
)
def test_hf_rejects_unenforceable_guarantees(hf_tools: ServedModel, fields: dict[str, Any], parameter: str) -> None:
    with pytest.raises(RequestValidationFailure) as info:
        adjust_request(hf_tools, _request(**fields), [1])
    assert info.value.parameter == parameter


def test_only_with_the_tool_parser_active() -> None:
    reasoning_only = _model(reasoning_parser="hf")
    assert rtemplate_adjust.applies(reasoning_only)
    request = _request(tools=[TOOL], tool_choice="none", parallel_tool_calls=False)
    adjust_request(reasoning_only, request, [1])
    assert request.skip_special_tokens is False
    beam = _model(tool_call_parser="beam", enable_auto_tool_choice=True, reasoning_parser="beam")
    adjust_request(beam, _request(tools=[TOOL], parallel_tool_calls=False), [1])  # beam: no grammar
    with pytest.raises(RequestValidationFailure, match="required tool choice for this request"):
        adjust_request(beam, _request(tools=[TOOL], tool_choice="required"), [1])
