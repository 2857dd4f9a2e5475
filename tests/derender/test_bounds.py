"""Bounds checked before any decode: counts, lengths, top-logprobs, vocabulary."""

from __future__ import annotations

import pytest

from tokenfront.api.errors import APIError
from tokenfront.config import ServerSettings
from tokenfront.derender.chat import derender_chat
from tokenfront.derender.completion import derender_completion
from tokenfront.protocol.generate import DerenderChatRequest, DerenderCompletionRequest


def chat(choices, **kw) -> DerenderChatRequest:
    return DerenderChatRequest.model_validate({"generate_response": {"choices": choices}, **kw})


def check_400(model, request, settings, match: str) -> None:
    fn = derender_chat if isinstance(request, DerenderChatRequest) else derender_completion
    with pytest.raises(APIError, match=match) as err:
        fn(model, request, settings)
    assert err.value.status == 400
    assert err.value.err_type == "BadRequestError"


def test_too_many_choices_and_responses(qwen3) -> None:
    settings = ServerSettings(max_n_sequences=2)
    choices = [{"index": i, "token_ids": [1]} for i in range(3)]
    check_400(qwen3, chat(choices), settings, r"choices count \(3\)")
    many = DerenderCompletionRequest.model_validate(
        {"generate_responses": [{"choices": [{"index": 0, "token_ids": [1]}]}] * 3}
    )
    check_400(qwen3, many, settings, r"generate_responses count \(3\)")


def test_lengths_against_max_model_len(qwen3_small, settings) -> None:
    check_400(
        qwen3_small, chat([{"index": 0, "token_ids": [1] * 65}]), settings, "token_ids length"
    )
    check_400(
        qwen3_small,
        chat([{"index": 0, "token_ids": [1]}], prompt_token_ids=[1] * 65),
        settings,
        "prompt_token_ids length",
    )
    lps = {"content": [{"token_id": 1, "logprob": -1.0}] * 65}
    check_400(
        qwen3_small,
        chat([{"index": 0, "token_ids": [1], "logprobs": lps}]),
        settings,
        "logprobs.content length",
    )
    req = DerenderChatRequest.model_validate(
        {
            "generate_response": {
                "choices": [{"index": 0, "token_ids": [1]}],
                "prompt_logprobs": [None] * 65,
            }
        }
    )
    check_400(qwen3_small, req, settings, "prompt_logprobs length")


def test_top_logprobs_over_max_logprobs(qwen3, settings) -> None:
    tops = [{"token_id": i, "logprob": -1.0} for i in range(21)]
    lps = {"content": [{"token_id": 1, "logprob": -1.0, "top_logprobs": tops}]}
    check_400(
        qwen3,
        chat([{"index": 0, "token_ids": [1], "logprobs": lps}]),
        settings,
        r"top_logprobs count \(21\)",
    )


def test_ids_outside_the_vocabulary_follow_vllm(qwen3, settings) -> None:
    """Unknown ids decode to nothing (as on vLLM); ids beyond 32 bits in the prompt or in
    logprobs are the client's 400, never a 500."""
    size = qwen3.vocab_size
    out = derender_chat(
        qwen3, chat([{"index": 0, "token_ids": [9707, size + 31, 2**40]}]), settings
    )
    assert out["choices"][0]["message"]["content"] == "Hello"
    out = derender_chat(
        qwen3, chat([{"index": 0, "token_ids": [9707]}], prompt_token_ids=[size + 5]), settings
    )
    assert out["choices"][0]["message"]["content"] == "Hello"
    lps = {
        "content": [
            {
                "token_id": size + 1,
                "logprob": -1.0,
                "top_logprobs": [{"token_id": size + 1, "logprob": -1.0}],
            }
        ]
    }
    out = derender_chat(qwen3, chat([{"index": 0, "token_ids": [9707], "logprobs": lps}]), settings)
    entry = out["choices"][0]["logprobs"]["content"][0]
    assert entry["token"] == "" and entry["bytes"] is None
    with pytest.raises(OverflowError):
        derender_chat(
            qwen3, chat([{"index": 0, "token_ids": [1]}], prompt_token_ids=[2**40]), settings
        )
    bad = {"content": [{"token_id": -3, "logprob": -1.0}]}
    with pytest.raises(OverflowError):
        derender_chat(qwen3, chat([{"index": 0, "token_ids": [1], "logprobs": bad}]), settings)
