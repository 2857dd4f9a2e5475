"""Streaming derender: chunks match the one-shot answer, role/usage chunks, vLLM's errors."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from derender_fakes import with_parser

from tokenfront.api.errors import APIError
from tokenfront.derender.state import StateCodec
from tokenfront.derender.stream import derender_chat_chunk, derender_completion_chunk
from tokenfront.protocol.generate import DerenderChatStreamRequest, DerenderCompletionStreamRequest

USER = [{"role": "user", "content": "hi"}]


def enc(model, text: str) -> list[int]:
    return model.tokenizer.encode(text, add_special_tokens=False)


def run_chat(model, settings, chunks: list[dict[str, Any]], base: dict[str, Any], codec=None):
    codec = codec or StateCodec(["k"])
    state = None
    out = []
    for chunk in chunks:
        body = {**base, "stream": True, "generate_chunk": chunk, "stream_state": state}
        res = derender_chat_chunk(
            model, DerenderChatStreamRequest.model_validate(body), settings, codec
        )
        state = res["stream_state"]
        out.append(res)
    return out


def run_completion(model, settings, chunks, base):
    codec = StateCodec(["k"])
    state = None
    out = []
    for chunk in chunks:
        body = {**base, "stream": True, "generate_chunk": chunk, "stream_state": state}
        res = derender_completion_chunk(
            model, DerenderCompletionStreamRequest.model_validate(body), settings, codec
        )
        state = res["stream_state"]
        out.append(res)
    return out


def one_token_chunks(ids: list[int], finish: str = "stop") -> list[dict[str, Any]]:
    chunks = [{"request_id": "g", "choices": [{"index": 0, "token_ids": [t]}]} for t in ids]
    chunks[-1]["choices"][0]["finish_reason"] = finish
    return chunks


def test_chat_chunks_concatenate_to_the_text(qwen3, settings) -> None:
    text = "Autumn 🍂 leaves fall."
    ids = enc(qwen3, text) + [151645]
    chunks = one_token_chunks(ids)
    chunks.append(
        {
            "request_id": "g",
            "choices": [],
            "usage": {"prompt_tokens": 9, "completion_tokens": len(ids)},
        }
    )
    base = {"chat_request": {"messages": USER}, "prompt_token_ids": [1, 2], "prompt_tokens": 4}
    out = run_chat(qwen3, settings, chunks, base)
    deltas = [r["chunk"]["choices"][0]["delta"] for r in out if r["chunk"]["choices"]]
    assert deltas[0]["role"] == "assistant"
    assert all(d["role"] is None for d in deltas[1:])
    assert "".join(d["content"] or "" for d in deltas) == text
    assert out[-2]["chunk"]["choices"][0]["finish_reason"] == "stop"
    assert out[-1]["chunk"]["choices"] == []
    assert out[-1]["chunk"]["usage"]["prompt_tokens"] == 4  # prompt_tokens wins
    assert out[-1]["chunk"]["usage"]["total_tokens"] == 4 + len(ids)
    assert all(r["chunk"]["id"] == "g" for r in out)


def test_role_deferred_past_usage_only_first_chunk(qwen3, settings) -> None:
    chunks = [
        {"choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 0}},
        {"choices": [{"index": 0, "token_ids": [32]}]},
    ]
    out = run_chat(qwen3, settings, chunks, {})
    assert out[0]["chunk"]["choices"] == []
    assert out[0]["chunk"]["usage"]["prompt_tokens"] == 1
    assert out[1]["chunk"]["choices"][0]["delta"] == {
        "role": "assistant",
        "content": "A",
        "reasoning": None,
    }


def test_spm_stream_keeps_leading_space(spm, settings) -> None:
    ids = enc(spm, "Hello world")
    out = run_chat(spm, settings, one_token_chunks(ids), {"prompt_token_ids": enc(spm, "the cat")})
    assert (
        "".join(r["chunk"]["choices"][0]["delta"]["content"] or "" for r in out) == " Hello world"
    )
    first = {"choices": [{"index": 0, "token_ids": ids}], "prompt_token_ids": enc(spm, "the cat")}
    out = run_chat(spm, settings, [first], {})
    assert out[0]["chunk"]["choices"][0]["delta"]["content"] == " Hello world"


def test_state_stays_small_over_a_long_stream(qwen3, settings) -> None:
    ids = enc(qwen3, "word " * 300)
    out = run_chat(qwen3, settings, one_token_chunks(ids), {"prompt_token_ids": [1]})
    sizes = [len(r["stream_state"]) for r in out]
    assert max(sizes) < 400
    assert sizes[-1] <= sizes[10] + 20


def test_completion_stream_logprob_offsets_are_absolute(qwen3, settings) -> None:
    def lp(ids):
        return {
            "content": [
                {"token_id": t, "logprob": -1.0, "top_logprobs": [{"token_id": t, "logprob": -1.0}]}
                for t in ids
            ]
        }

    chunks = [
        {"choices": [{"index": 0, "token_ids": [32, 33177], "logprobs": lp([32, 33177])}]},
        {"choices": [{"index": 0, "token_ids": [56346, 522], "logprobs": lp([56346, 522])}]},
        {
            "choices": [
                {
                    "index": 0,
                    "token_ids": [151645],
                    "logprobs": lp([151645]),
                    "finish_reason": "stop",
                }
            ]
        },
    ]
    out = run_completion(qwen3, settings, chunks, {"prompt_token_ids": [1]})
    texts = [r["chunk"]["choices"][0]["text"] for r in out]
    assert texts == ["A<b", ">c</", ""]
    offsets = [r["chunk"]["choices"][0]["logprobs"]["text_offset"] for r in out]
    assert offsets == [[0, 1], [3, 5], [7]]
    assert out[0]["chunk"]["object"] == "text_completion"


def test_completion_stream_multibyte_across_chunks(qwen3, settings) -> None:
    ids = enc(qwen3, "a 🍂 b")
    out = run_completion(qwen3, settings, one_token_chunks(ids, "length"), {})
    assert "".join(r["chunk"]["choices"][0]["text"] for r in out) == "a 🍂 b"


@pytest.mark.parametrize(
    ("base", "chunk", "match"),
    [
        ({"chat_request": {"messages": USER, "stop": ["x"]}}, {"choices": []}, "stop strings"),
        (
            {},
            {"choices": [{"index": 0, "token_ids": [1]}, {"index": 1, "token_ids": [2]}]},
            "at most one choice",
        ),
        (
            {"prompt_token_ids": [1] * 30},
            {"choices": [{"index": 0, "token_ids": [1] * 40}]},
            "exceeds max_model_len",
        ),
        (
            {},
            {
                "choices": [
                    {
                        "index": 0,
                        "token_ids": [1],
                        "logprobs": {"content": [{"token_id": -1, "logprob": 0.0}]},
                    }
                ]
            },
            "invalid stream_state",
        ),
    ],
)
def test_chat_stream_errors(qwen3_small, settings, base, chunk, match) -> None:
    with pytest.raises(APIError, match=match):
        run_chat(qwen3_small, settings, [chunk], base)


def test_completion_stream_errors(qwen3, settings) -> None:
    with pytest.raises(APIError, match="stop strings"):
        run_completion(
            qwen3, settings, [{"choices": []}], {"completion_request": {"prompt": "x", "stop": "y"}}
        )
    with pytest.raises(APIError, match="at most one choice"):
        run_completion(qwen3, settings, [{"choices": [{"index": 0}, {"index": 1}]}], {})


def test_parser_stream_requirements(qwen3, settings) -> None:
    model = with_parser(qwen3)
    chunk = {"choices": [{"index": 0, "token_ids": [32]}]}
    with pytest.raises(APIError, match="chat_request is required"):
        run_chat(model, settings, [chunk], {"prompt_token_ids": [1]})
    with pytest.raises(APIError, match="prompt_token_ids is required"):
        run_chat(model, settings, [chunk], {"chat_request": {"messages": USER}})


def test_parser_stream_carries_parser_state(qwen3, settings) -> None:
    model = with_parser(qwen3)
    cr = {
        "messages": USER,
        "tools": [{"type": "function", "function": {"name": "f"}}],
        "tool_choice": "auto",
    }
    chunks = [
        {"choices": [{"index": 0, "token_ids": enc(model, "Hi")}]},
        {"choices": [{"index": 0, "token_ids": enc(model, "CALL f")}]},
        {"choices": [{"index": 0, "token_ids": [151645], "finish_reason": "stop"}]},
    ]
    out = run_chat(model, settings, chunks, {"chat_request": cr, "prompt_token_ids": [1]})
    first = out[0]["chunk"]["choices"][0]
    assert first["delta"] == {"role": "assistant", "content": "Hi", "reasoning": None}
    call = out[1]["chunk"]["choices"][0]["delta"]["tool_calls"][0]
    assert call["function"]["name"] == "f"
    assert out[2]["chunk"]["choices"][0]["finish_reason"] == "tool_calls"
    payload = orjson.loads(
        __import__("base64").urlsafe_b64decode(out[1]["stream_state"].split(".")[0] + "==")
    )
    assert payload["ps"]["calls"] == 1


def test_parser_stream_drops_tool_calls_when_not_kept(qwen3, settings) -> None:
    model = with_parser(qwen3)
    chunks = [
        {"choices": [{"index": 0, "token_ids": enc(model, "CALL f"), "finish_reason": "stop"}]}
    ]
    out = run_chat(
        model, settings, chunks, {"chat_request": {"messages": USER}, "prompt_token_ids": [1]}
    )
    choice = out[0]["chunk"]["choices"][0]
    assert "tool_calls" not in choice["delta"]
    assert choice["finish_reason"] == "stop"


def test_foreign_state_rejected(qwen3, llama3, settings) -> None:
    codec = StateCodec(["k"])
    out = run_chat(qwen3, settings, [{"choices": [{"index": 0, "token_ids": [32]}]}], {}, codec)
    state = out[0]["stream_state"]
    body = {
        "stream": True,
        "generate_chunk": {"choices": [{"index": 0, "token_ids": [33]}]},
        "stream_state": state,
    }
    with pytest.raises(APIError, match="invalid stream_state"):
        derender_chat_chunk(llama3, DerenderChatStreamRequest.model_validate(body), settings, codec)
    with pytest.raises(APIError, match="invalid stream_state"):
        derender_completion_chunk(
            qwen3, DerenderCompletionStreamRequest.model_validate(body), settings, codec
        )


def test_vllm_style_state_accepted(qwen3, settings) -> None:
    body = {
        "stream": True,
        "generate_chunk": {"choices": [{"index": 0, "token_ids": [33]}]},
        "stream_state": {
            "prev_tokens": ["A"],
            "prefix_offset": 0,
            "read_offset": 1,
            "role_sent": True,
        },
    }
    res = derender_chat_chunk(
        qwen3, DerenderChatStreamRequest.model_validate(body), settings, StateCodec(["k"])
    )
    assert res["chunk"]["choices"][0]["delta"] == {"role": None, "content": "B", "reasoning": None}
