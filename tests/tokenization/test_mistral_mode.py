"""`--tokenizer-mode mistral`: mistral-common tokenizer with vLLM's MistralTokenizer rules."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tokenfront.api.errors import APIError
from tokenfront.render.mistral import (
    check_mistral_request,
    encode_mistral_chat,
    tokenize_mistral_chat,
    truncate_tool_call_ids,
)
from tokenfront.tokenization.detokenizer import DetokWindow, detokenize_delta, tokenizer_view
from tokenfront.tokenization.mistral import (
    BYTE_PIECE_PREFIX,
    MistralModeTokenizer,
    MistralTokenizerView,
    load_mistral_tokenizer,
)

MODEL = Path(__file__).resolve().parents[3] / "shared" / "models" / "mistral"
pytestmark = pytest.mark.skipif(not (MODEL / "tekken.json").exists(), reason="no shared model")

TOOL_CALLS, INST, EOS = 9, 3, 2


@pytest.fixture(scope="module")
def tok() -> MistralModeTokenizer:
    return load_mistral_tokenizer(MODEL)


@pytest.fixture(scope="module")
def view(tok: MistralModeTokenizer) -> MistralTokenizerView:
    v = tokenizer_view(tok)
    assert isinstance(v, MistralTokenizerView)
    return v


def _stream(view: MistralTokenizerView, ids: list[int], skip: bool, seed: list[int]) -> str:
    window = DetokWindow(view.ids_to_tokens(seed, skip), 0, 0)
    window.read_offset = len(window.tokens)
    window.prefix_offset = max(window.read_offset - 5, 0)
    parts = []
    for tid in ids:
        text, window = detokenize_delta(view, window, [tid], skip, True)
        parts.append(text)
    return "".join(parts)


def test_facts(tok: MistralModeTokenizer) -> None:
    assert len(tok) == 131072 and tok.version == 3 and tok.is_tekken
    assert tok.eos_token_id == EOS and tok.bos_token_id == 1
    assert TOOL_CALLS in tok.all_special_ids and "[TOOL_CALLS]" in tok.all_special_tokens
    assert tok.get_added_vocab() == {}
    assert tok("hi", add_special_tokens=True)["input_ids"][0] == 1
    assert tok("hi", add_special_tokens=False)["input_ids"][0] != 1


def test_join_drops_specials_but_tool_calls(tok: MistralModeTokenizer) -> None:
    assert tok.convert_tokens_to_string(["<s>", "[INST]", "a", "[TOOL_CALLS]", "b", "</s>"]) == (
        "a[TOOL_CALLS]b"
    )


def test_skip_special_keeps_tool_calls(tok: MistralModeTokenizer, view: MistralTokenizerView) -> None:
    ids = [1, INST, TOOL_CALLS, EOS]
    assert tok.convert_ids_to_tokens(ids, skip_special_tokens=True) == ["[TOOL_CALLS]"]
    assert view.ids_to_tokens(ids, True) == ["[TOOL_CALLS]"]
    assert view.ids_to_tokens(ids, False) == ["<s>", "[INST]", "[TOOL_CALLS]", "</s>"]


def test_byte_pieces(tok: MistralModeTokenizer, view: MistralTokenizerView) -> None:
    emoji = tok.encode("🙂", add_special_tokens=False)
    assert len(emoji) == 4  # one token per UTF-8 byte
    raw = tok.convert_ids_to_tokens(emoji, skip_special_tokens=True)
    assert all(isinstance(t, bytes) for t in raw)
    marked = view.ids_to_tokens(emoji, True)
    assert all(t.startswith(BYTE_PIECE_PREFIX) for t in marked)
    assert view.tokens_to_string(marked) == tok.convert_tokens_to_string(raw) == "🙂"


def test_incremental_matches_full_decode_when_skipping(
    tok: MistralModeTokenizer, view: MistralTokenizerView
) -> None:
    text = "Hello 東京 🙂 and 🙂🙂!"
    ids = [TOOL_CALLS, *tok.encode(text, add_special_tokens=False), EOS]
    seed = tok.encode("Smile 🙂", add_special_tokens=True) + [4]
    assert _stream(view, ids, True, seed) == "[TOOL_CALLS]" + text


def test_incremental_without_skipping_shows_broken_chars(
    tok: MistralModeTokenizer, view: MistralTokenizerView
) -> None:
    # vLLM joins U+FFFD pieces as text when special tokens are kept.
    ids = tok.encode("a🙂b", add_special_tokens=False) + [INST, EOS]
    out = _stream(view, ids, False, [1])
    assert out.startswith("a") and out.endswith("b") and "\ufffd" in out
    assert "[INST]" not in out


def test_decode_unknown_id_is_400(tok: MistralModeTokenizer, view: MistralTokenizerView) -> None:
    with pytest.raises(APIError) as err:
        tok.decode([29706, 200000])
    assert err.value.status == 400
    assert view.decode([29706, 200000]) == tok.decode([29706])


def test_truncate_tool_call_ids() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "assistant", "tool_calls": [{"id": "call_0123456789abcdef"}]},
        {"role": "tool", "tool_call_id": "call_0123456789abcdef"},
    ]
    truncate_tool_call_ids(messages)
    assert messages[0]["tool_calls"][0]["id"] == "789abcdef"
    assert messages[1]["tool_call_id"] == "789abcdef"


def test_encode_chat_and_errors(tok: MistralModeTokenizer) -> None:
    user = {"role": "user", "content": "hi"}
    ids = encode_mistral_chat(tok, [user], None, add_generation_prompt=True, continue_final_message=False)
    assert ids[:2] == [1, INST] and ids[-1] == 4
    for messages, kwargs in (
        ([], {}),
        ([user, {"role": "assistant", "content": "x"}], {}),
        ([user, {"role": "tool", "content": "x"}], {}),
    ):
        with pytest.raises(APIError):
            encode_mistral_chat(
                tok, messages, None, add_generation_prompt=True, continue_final_message=False,
                **kwargs,
            )
    with pytest.raises(APIError, match="tool_calls must be a list"):
        tokenize_mistral_chat(
            type("M", (), {"tokenizer": tok})(),
            [user, {"role": "assistant", "tool_calls": []}],
            None,
            True,
            False,
        )


def test_request_checks() -> None:
    from tokenfront.protocol.requests import ChatCompletionRequest

    ok = ChatCompletionRequest.model_validate({"messages": [{"role": "user", "content": "x"}]})
    check_mistral_request(ok)
    bad = ChatCompletionRequest.model_validate(
        {"messages": [{"role": "user", "content": "x"}], "chat_template_kwargs": {}}
    )
    with pytest.raises(APIError, match="not supported for Mistral tokenizers"):
        check_mistral_request(bad)


@pytest.mark.parametrize(
    ("token", "message"),
    [
        (131071, None),
        (131072, "'Invalid token for decoding: 130072'"),  # vLLM: the same text as a 500
        (2**32, "'Invalid token for decoding: 4294966296'"),
        (2**70, "Python int too large to convert to C long"),
    ],
)
def test_an_echoed_id_prompt_is_decoded_by_mistral_common(
    tok: MistralModeTokenizer, token: int, message: str | None
) -> None:
    from types import SimpleNamespace

    from tokenfront.render.completion import _check_decodable

    model: Any = SimpleNamespace(tokenizer=tok)
    if message is None:
        _check_decodable(model, [5, token])
        return
    with pytest.raises(APIError) as info:
        _check_decodable(model, [5, token])
    assert str(info.value) == message
