"""Non-streaming chat derender, field for field."""

from __future__ import annotations

from typing import Any

import pytest
from derender_fakes import with_parser

from tokenfront.api.errors import APIError
from tokenfront.derender.chat import derender_chat
from tokenfront.protocol.generate import DerenderChatRequest

USER = [{"role": "user", "content": "hi"}]


def body(token_ids: list[int], **kw: Any) -> DerenderChatRequest:
    choice = {"index": 0, "token_ids": token_ids, **kw.pop("choice", {})}
    gen = {"request_id": "gen-1", "choices": [choice], **kw.pop("gen", {})}
    return DerenderChatRequest.model_validate({"generate_response": gen, **kw})


def enc(model, text: str) -> list[int]:
    return model.tokenizer.encode(text, add_special_tokens=False)


def test_plain_answer_shape(qwen3, settings) -> None:
    ids = enc(qwen3, "Hello there.") + [151645]
    out = derender_chat(
        qwen3, body(ids, prompt_tokens=5, chat_request={"messages": USER}), settings
    )
    assert out["id"] == "gen-1"
    assert out["model"] == "qwen3"
    assert out["object"] == "chat.completion"
    choice = out["choices"][0]
    assert choice["message"] == {
        "role": "assistant",
        "content": "Hello there.",
        "refusal": None,
        "annotations": None,
        "audio": None,
        "function_call": None,
        "reasoning": None,
    }
    assert choice["finish_reason"] == "stop"
    assert choice["stop_reason"] is None
    assert out["usage"] == {
        "prompt_tokens": 5,
        "total_tokens": 5 + len(ids),
        "completion_tokens": len(ids),
        "prompt_tokens_details": None,
        "completion_tokens_details": None,
    }


def test_model_name_echoed_when_given(qwen3, settings) -> None:
    out = derender_chat(qwen3, body([32], model="alias"), settings)
    assert out["model"] == "alias"


def test_stop_token_kept_with_include_stop_str(qwen3, settings) -> None:
    ids = enc(qwen3, "Hi") + [151645]
    cr = {"messages": USER, "include_stop_str_in_output": True, "skip_special_tokens": False}
    out = derender_chat(qwen3, body(ids, chat_request=cr), settings)
    assert out["choices"][0]["message"]["content"] == "Hi<|im_end|>"


def test_secondary_eos_reported_as_stop_reason(qwen3, settings) -> None:
    ids = enc(qwen3, "Hi") + [151643]  # <|endoftext|>: EOS from generation_config
    out = derender_chat(qwen3, body(ids), settings)
    assert out["choices"][0]["stop_reason"] == 151643
    assert out["choices"][0]["message"]["content"] == "Hi"
    out = derender_chat(
        qwen3, body(ids, chat_request={"messages": USER, "ignore_eos": True}), settings
    )
    assert out["choices"][0]["stop_reason"] is None


def test_stop_string_cut_honours_min_tokens(qwen3, settings) -> None:
    ids = enc(qwen3, "Hello world. Hello again.")
    cr = {"messages": USER, "stop": ["Hello"], "min_tokens": 3}
    out = derender_chat(qwen3, body(ids, chat_request=cr), settings)
    assert out["choices"][0]["message"]["content"] == "Hello world. "
    assert out["choices"][0]["stop_reason"] == "Hello"
    cr["include_stop_str_in_output"] = True
    out = derender_chat(qwen3, body(ids, chat_request=cr), settings)
    assert out["choices"][0]["message"]["content"] == "Hello world. Hello"


def test_reported_string_stop_reason_is_cut(qwen3, settings) -> None:
    ids = enc(qwen3, "abc ### def")
    out = derender_chat(qwen3, body(ids, choice={"stop_reason": "###"}), settings)
    assert out["choices"][0]["message"]["content"] == "abc "
    assert out["choices"][0]["stop_reason"] == "###"


def test_spm_seeded_from_prompt_keeps_leading_space(spm, settings) -> None:
    prompt = enc(spm, "the cat sat")
    out = derender_chat(spm, body(enc(spm, "Hello world"), prompt_token_ids=prompt), settings)
    assert out["choices"][0]["message"]["content"] == " Hello world"
    gen_prompt = derender_chat(
        spm, body(enc(spm, "Hello world"), gen={"prompt_token_ids": prompt}), settings
    )
    assert gen_prompt["choices"][0]["message"]["content"] == " Hello world"
    unseeded = derender_chat(spm, body(enc(spm, "Hello world")), settings)
    assert unseeded["choices"][0]["message"]["content"] == "Hello world"


def test_return_token_ids_and_passthrough(qwen3, settings) -> None:
    gen = {
        "prompt_token_ids": [1, 2, 3],
        "prompt_logprobs": [None, {"2": {"logprob": -1.5, "rank": 1}}],
        "kv_transfer_params": {"k": 1},
    }
    cr = {"messages": USER, "return_token_ids": True}
    out = derender_chat(qwen3, body([32, 33], gen=gen, chat_request=cr), settings)
    assert out["choices"][0]["token_ids"] == [32, 33]
    assert out["prompt_token_ids"] == [1, 2, 3]
    assert out["prompt_logprobs"] == [
        None,
        {"2": {"logprob": -1.5, "rank": 1, "decoded_token": None}},
    ]
    assert out["kv_transfer_params"] == {"k": 1}


def test_logprobs_chat_shape_and_cut(qwen3, settings) -> None:
    lps = {
        "content": [
            {
                "token_id": 32,
                "logprob": -0.1,
                "top_logprobs": [
                    {"token_id": 32, "logprob": -0.1},
                    {"token_id": 33, "logprob": -2.0},
                ],
            }
        ]
    }
    cr = {"messages": USER, "logprobs": True, "top_logprobs": 1}
    out = derender_chat(qwen3, body([32], choice={"logprobs": lps}, chat_request=cr), settings)
    assert out["choices"][0]["logprobs"] == {
        "content": [
            {
                "token": "A",
                "logprob": -0.1,
                "bytes": [65],
                "top_logprobs": [{"token": "A", "logprob": -0.1, "bytes": [65]}],
            }
        ]
    }


def test_empty_token_ids_rejected(qwen3, settings) -> None:
    with pytest.raises(APIError) as err:
        derender_chat(qwen3, body([]), settings)
    assert err.value.status == 400


def test_parser_requires_chat_request(qwen3, settings) -> None:
    model = with_parser(qwen3)
    with pytest.raises(APIError, match="chat_request is required"):
        derender_chat(model, body([32]), settings)


def test_parser_hook_and_tool_calls_finish_reason(qwen3, settings) -> None:
    model = with_parser(qwen3)
    ids = enc(model, "CALL get_weather") + [151645]
    cr = {
        "messages": [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": "a", "type": "function", "function": {"name": "x", "arguments": "{}"}}
                ],
            },
            {"role": "tool", "content": "ok", "tool_call_id": "a"},
        ],
        "tools": [{"type": "function", "function": {"name": "get_weather"}}],
        "tool_choice": "auto",
    }
    out = derender_chat(
        model, body(ids, gen={"prompt_token_ids": [7, 8]}, chat_request=cr), settings
    )
    choice = out["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"]["tool_calls"][0]["function"]["name"] == "get_weather"
    ctx = model.parser.contexts[-1]
    assert ctx.history_tool_call_cnt == 1
    assert ctx.prompt_token_ids == [7, 8]
    assert ctx.enable_auto_tools is True
    assert ctx.tools[0]["function"]["name"] == "get_weather"
    # Special tokens are kept for the parser: the EOS is dropped as the stop token.
    named = dict(cr, tool_choice={"type": "function", "function": {"name": "get_weather"}})
    out = derender_chat(model, body(ids, chat_request=named), settings)
    assert out["choices"][0]["finish_reason"] == "stop"


def test_hidden_reasoning_hides_metadata(qwen3, settings) -> None:
    model = with_parser(qwen3)
    ids = enc(model, "<r>think</r>answer")
    lps = {"content": [{"token_id": t, "logprob": -1.0} for t in ids]}
    cr = {"messages": USER, "include_reasoning": False, "return_token_ids": True, "logprobs": True}
    out = derender_chat(model, body(ids, choice={"logprobs": lps}, chat_request=cr), settings)
    choice = out["choices"][0]
    assert choice["message"]["reasoning"] is None
    assert choice["message"]["content"] == "answer"
    assert choice["logprobs"] is None
    assert choice["token_ids"] is None


def test_two_choices_share_the_seed(spm, settings) -> None:
    prompt = enc(spm, "the cat")
    gen = {
        "choices": [
            {"index": 0, "token_ids": enc(spm, "Hello")},
            {"index": 1, "token_ids": enc(spm, "world"), "finish_reason": "length"},
        ]
    }
    req = DerenderChatRequest.model_validate({"generate_response": gen, "prompt_token_ids": prompt})
    out = derender_chat(spm, req, settings)
    assert [c["message"]["content"] for c in out["choices"]] == [" Hello", " world"]
    assert [c["finish_reason"] for c in out["choices"]] == ["stop", "length"]
    assert out["usage"]["prompt_tokens"] == 0
