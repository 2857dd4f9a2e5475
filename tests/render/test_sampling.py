"""Sampling params JSON, max_tokens and structured outputs (no HTTP)."""

from __future__ import annotations

import json

import pytest

from tokenfront.api.errors import APIError
from tokenfront.protocol.requests import ChatCompletionRequest, CompletionRequest
from tokenfront.render import adjust
from tokenfront.render.sampling import build_sampling_params, get_max_tokens, sampling_defaults

DEFAULTS = {"temperature": 0.6, "top_p": 0.95, "top_k": 20}
MSGS = [{"role": "user", "content": "hi"}]


def chat(**kw) -> ChatCompletionRequest:
    return ChatCompletionRequest.model_validate({"messages": MSGS, **kw})


def test_defaults_shape() -> None:
    sp, kv, ec = build_sampling_params(chat(), 100, DEFAULTS)
    assert sp == {
        "presence_penalty": 0.0,
        "frequency_penalty": 0.0,
        "repetition_penalty": 1.0,
        "temperature": 0.6,
        "top_p": 0.95,
        "top_k": 20,
        "min_p": 0.0,
        "stop": [],
        "stop_token_ids": [],
        "max_tokens": 100,
        "output_kind": 2,
        "skip_clone": True,
        "bad_words": [],
        "skip_reading_prefix_cache": False,
    }
    assert kv is None and ec is None


def test_greedy_drops_top_p_and_min_p() -> None:
    sp, _, _ = build_sampling_params(chat(temperature=0.0), 16, DEFAULTS)
    assert "top_p" not in sp and "min_p" not in sp and "top_k" not in sp
    assert "max_tokens" not in sp  # 16 is SamplingParams' own default


def test_greedy_with_n_is_rejected() -> None:
    with pytest.raises(APIError, match="greedy"):
        build_sampling_params(chat(temperature=0.0, n=2), 16, DEFAULTS)


def test_stop_buffer_and_dedupe() -> None:
    sp, _, _ = build_sampling_params(chat(stop=["ab", "abcd"], stop_token_ids=[5, 5, 6]), 9, {})
    assert sp["stop"] == ["ab", "abcd"]
    assert sp["stop_token_ids"] == [5, 6]
    assert sp["output_text_buffer_length"] == 3


def test_logit_bias_clamped_and_validated() -> None:
    sp, _, _ = build_sampling_params(chat(logit_bias={"5": 200, "-3": -500}), 9, {})
    assert sp["logit_bias"] == {"5": 100.0, "-3": -100.0}
    with pytest.raises(APIError) as err:
        build_sampling_params(chat(logit_bias={"abc": 1.0}), 9, {})
    assert err.value.param == "logit_bias"


def test_transfer_params_hoisted() -> None:
    sp, kv, ec = build_sampling_params(
        chat(vllm_xargs={"a": 1}, kv_transfer_params={"x": 1}, ec_transfer_params={"y": 2}), 9, {}
    )
    assert sp["extra_args"] == {"a": 1}
    assert kv == {"x": 1} and ec == {"y": 2}


def test_response_format_json_schema() -> None:
    req = chat(response_format={"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}}})
    sp, _, _ = build_sampling_params(req, 9, {})
    assert sp["structured_outputs"]["json"] == {"type": "object"}
    assert sp["structured_outputs"]["_backend"] is None


def test_completion_echo_without_generation() -> None:
    req = CompletionRequest.model_validate({"prompt": "x", "echo": True, "max_tokens": 0, "logprobs": 2})
    sp, _, _ = build_sampling_params(req, 0, {})
    assert sp["max_tokens"] == 1
    assert sp["prompt_logprobs"] == 2
    assert sp["skip_reading_prefix_cache"] is True


def test_get_max_tokens() -> None:
    assert get_max_tokens(100, None, 40, {}, None, None) == 60
    assert get_max_tokens(100, 5, 40, {}, None, None) == 5
    assert get_max_tokens(100, None, 400, {}, None, 10) == 90
    with pytest.raises(APIError):
        get_max_tokens(100, None, 101, {}, None, None)


def test_generation_config_defaults(qwen3_plain) -> None:
    assert sampling_defaults(qwen3_plain) == {"temperature": 0.6, "top_k": 20, "top_p": 0.95}


TOOLS = [
    {
        "type": "function",
        "function": {"name": "f", "parameters": {"type": "object", "properties": {}}},
    }
]


def test_hermes_required_structural_tag(qwen3_hermes) -> None:
    req = chat(tools=TOOLS, tool_choice="required")
    adjust.adjust_request(qwen3_hermes, req, [1])
    assert req.skip_special_tokens is False
    tag = json.loads(req.structured_outputs.structural_tag)
    assert tag["format"]["type"] == "tags_with_separator"
    assert tag["format"]["tags"][0]["begin"] == '<tool_call>\n{"name": "f", "arguments": '


def test_qwen3_reasoning_keeps_special_tokens(qwen3_hermes) -> None:
    req = chat()
    adjust.adjust_request(qwen3_hermes, req, [1])
    assert req.skip_special_tokens is False


def test_plain_model_leaves_request(qwen3_plain) -> None:
    req = chat()
    adjust.adjust_request(qwen3_plain, req, [1])
    assert req.skip_special_tokens is None
