"""The signed stream state: round trip, tampering, truncation, foreign configs, key rotation."""

from __future__ import annotations

import dataclasses

import pytest

from tokenfront.api.errors import APIError
from tokenfront.derender.state import StateCodec, StreamState
from tokenfront.tokenization.detokenizer import DetokWindow


def sample() -> StreamState:
    return StreamState(
        window=DetokWindow(["a", "b"], 0, 1),
        role_sent=True,
        logprob_context=[1, 2],
        logprob_text_offset=7,
        output_tokens=3,
        parser_state={"phase": "content", "buf": "x"},
        tools_streamed=True,
        tool_call_ids=["id-0"],
    )


def test_round_trip(qwen3) -> None:
    codec = StateCodec(["k1"])
    binding = StateCodec.binding(qwen3, "chat")
    token = codec.encode(sample(), binding)
    assert isinstance(token, str)
    assert codec.decode(token, binding) == sample()


@pytest.mark.parametrize(
    "mangle",
    [
        lambda t: t[:-3],
        lambda t: t[: len(t) // 2],
        lambda t: "x" + t[1:],
        lambda t: t.replace(".", ""),
        lambda t: "",
        lambda t: "not base64 !!!.%%%",
    ],
)
def test_tampered_or_truncated_is_400(qwen3, mangle) -> None:
    codec = StateCodec(["k1"])
    binding = StateCodec.binding(qwen3, "chat")
    token = codec.encode(sample(), binding)
    with pytest.raises(APIError, match="invalid stream_state") as err:
        codec.decode(mangle(token), binding)
    # vLLM's state is an object: any string fails its request validation ("Bad Request")
    assert (err.value.status, err.value.err_type) == (400, "Bad Request")


def test_foreign_binding_rejected(qwen3) -> None:
    codec = StateCodec(["k1"])
    token = codec.encode(sample(), StateCodec.binding(qwen3, "chat"))
    with pytest.raises(APIError):
        codec.decode(token, StateCodec.binding(qwen3, "completion"))
    other = dataclasses.replace(
        qwen3, options=dataclasses.replace(qwen3.options, reasoning_parser="qwen3")
    )
    with pytest.raises(APIError):
        codec.decode(token, StateCodec.binding(other, "chat"))


def test_key_rotation_first_signs_all_verify(qwen3) -> None:
    binding = StateCodec.binding(qwen3, "chat")
    old = StateCodec(["old"]).encode(sample(), binding)
    rotated = StateCodec(["new", "old"])
    assert rotated.decode(old, binding) == sample()
    with pytest.raises(APIError):
        StateCodec(["new"]).decode(old, binding)
    fresh = rotated.encode(sample(), binding)
    assert StateCodec(["new"]).decode(fresh, binding) == sample()
    with pytest.raises(APIError):
        StateCodec(["old"]).decode(fresh, binding)


def test_random_key_when_none_configured(qwen3, caplog) -> None:
    binding = StateCodec.binding(qwen3, "chat")
    with caplog.at_level("WARNING"):
        a, b = StateCodec([]), StateCodec(None)
    assert "random" in caplog.text
    token = a.encode(sample(), binding)
    assert a.decode(token, binding) == sample()
    with pytest.raises(APIError):
        b.decode(token, binding)
