"""Non-streaming completions derender: flat index, usage, kv params, logprobs shape."""

from __future__ import annotations

from typing import Any

import pytest

from tokenfront.api.errors import APIError
from tokenfront.derender.completion import derender_completion
from tokenfront.protocol.generate import DerenderCompletionRequest


def enc(model, text: str) -> list[int]:
    return model.tokenizer.encode(text, add_special_tokens=False)


def body(responses: list[dict[str, Any]], **kw: Any) -> DerenderCompletionRequest:
    return DerenderCompletionRequest.model_validate({"generate_responses": responses, **kw})


def test_flat_index_usage_and_ids(qwen3, settings) -> None:
    responses = [
        {
            "request_id": "a",
            "choices": [
                {"index": 0, "token_ids": enc(qwen3, "one")},
                {"index": 1, "token_ids": enc(qwen3, "two")},
            ],
        },
        {
            "request_id": "b",
            "choices": [{"index": 0, "token_ids": enc(qwen3, "three"), "finish_reason": "length"}],
        },
    ]
    out = derender_completion(qwen3, body(responses, prompt_tokens=[3, 4]), settings)
    assert out["id"] == "a"
    assert out["object"] == "text_completion"
    assert [c["index"] for c in out["choices"]] == [0, 1, 2]
    assert [c["text"] for c in out["choices"]] == ["one", "two", "three"]
    assert out["choices"][2]["finish_reason"] == "length"
    assert out["usage"]["prompt_tokens"] == 7
    assert out["metrics"] is None


def test_kv_params_kept_only_when_equal(qwen3, settings) -> None:
    same = [
        {"choices": [{"index": 0, "token_ids": [32]}], "kv_transfer_params": {"k": 1}},
        {"choices": [{"index": 0, "token_ids": [33]}], "kv_transfer_params": {"k": 1}},
    ]
    assert derender_completion(qwen3, body(same), settings)["kv_transfer_params"] == {"k": 1}
    same[1]["kv_transfer_params"] = {"k": 2}
    assert derender_completion(qwen3, body(same), settings)["kv_transfer_params"] is None


def test_seed_override_per_prompt(spm, settings) -> None:
    prompt = enc(spm, "the cat")
    responses = [
        {"choices": [{"index": 0, "token_ids": enc(spm, "Hello")}], "prompt_token_ids": prompt},
        {"choices": [{"index": 0, "token_ids": enc(spm, "Hello")}]},
    ]
    out = derender_completion(spm, body(responses, prompt_token_ids=[None, prompt]), settings)
    assert [c["text"] for c in out["choices"]] == [" Hello", " Hello"]
    out = derender_completion(spm, body(responses, prompt_token_ids=[[], None]), settings)
    assert [c["text"] for c in out["choices"]] == ["Hello", "Hello"]


def test_return_token_ids_echoes_prompt_per_choice(qwen3, settings) -> None:
    responses = [{"choices": [{"index": 0, "token_ids": [32]}], "prompt_token_ids": [5, 6]}]
    cr = {"prompt": "x", "return_token_ids": True}
    out = derender_completion(qwen3, body(responses, completion_request=cr), settings)
    assert out["choices"][0]["token_ids"] == [32]
    assert out["choices"][0]["prompt_token_ids"] == [5, 6]


def test_completion_logprobs_cut_is_logprobs_plus_one(qwen3, settings) -> None:
    lps = {
        "content": [
            {
                "token_id": 32,
                "logprob": -0.1,
                "top_logprobs": [
                    {"token_id": 32, "logprob": -0.1},
                    {"token_id": 33, "logprob": -2.0},
                    {"token_id": 34, "logprob": -3.0},
                ],
            }
        ]
    }
    responses = [{"choices": [{"index": 0, "token_ids": [32], "logprobs": lps}]}]
    cr = {"prompt": "x", "logprobs": 1}
    out = derender_completion(qwen3, body(responses, completion_request=cr), settings)
    assert out["choices"][0]["logprobs"] == {
        "text_offset": [0],
        "token_logprobs": [-0.1],
        "tokens": ["A"],
        "top_logprobs": [{"A": -0.1, "B": -2.0}],
    }


def test_specials_kept_when_asked(qwen3, settings) -> None:
    responses = [{"choices": [{"index": 0, "token_ids": [32, 151645, 33, 220, 151645, 356]}]}]
    cr = {"prompt": "x", "skip_special_tokens": False}
    out = derender_completion(qwen3, body(responses, completion_request=cr), settings)
    assert out["choices"][0]["text"] == "A<|im_end|>B <|im_end|> C"


def test_empty_list_and_empty_tokens_rejected(qwen3, settings) -> None:
    with pytest.raises(APIError, match="must not be empty"):
        derender_completion(qwen3, body([]), settings)
    with pytest.raises(APIError, match="empty or null token_ids"):
        derender_completion(qwen3, body([{"choices": [{"index": 0}]}]), settings)
