"""Logprob resolution: token strings, bytes, U+FFFD correction, top-k cuts, completions shape."""

from __future__ import annotations

from types import SimpleNamespace

from tokenfront.derender.logprobs import (
    chat_top_limit,
    completion_top_limit,
    context_tail,
    resolve_logprobs,
    to_completion_logprobs,
)
from tokenfront.protocol.generate import GenerateLogProbs
from tokenfront.tokenization.detokenizer import tokenizer_view


def lp(ids, tops=None):
    content = []
    for i, tid in enumerate(ids):
        extra = tops[i] if tops else []
        content.append(
            {
                "token_id": tid,
                "logprob": -0.5 - i,
                "top_logprobs": [{"token_id": tid, "logprob": -0.5 - i}]
                + [{"token_id": t, "logprob": -5.0} for t in extra],
            }
        )
    return GenerateLogProbs.model_validate({"content": content})


def test_top_limits_per_endpoint() -> None:
    def chat(**kw):
        return SimpleNamespace(
            **{"logprobs": True, "top_logprobs": 0, "logprob_token_ids": None, **kw}
        )  # noqa: E731

    assert chat_top_limit(None) is None
    assert chat_top_limit(chat(logprobs=False)) is None
    assert chat_top_limit(chat(top_logprobs=2)) == 2
    assert chat_top_limit(chat(top_logprobs=0)) == 0
    assert chat_top_limit(chat(top_logprobs=-1)) is None
    assert chat_top_limit(chat(top_logprobs=2, logprob_token_ids=[1])) is None
    comp = lambda **kw: SimpleNamespace(**{"logprobs": None, "logprob_token_ids": None, **kw})  # noqa: E731
    assert completion_top_limit(None) is None
    assert completion_top_limit(comp()) is None
    assert completion_top_limit(comp(logprobs=0)) == 1
    assert completion_top_limit(comp(logprobs=3)) == 4
    assert completion_top_limit(comp(logprobs=-1)) is None


def test_multibyte_split_across_entries_is_corrected(qwen3) -> None:
    view = tokenizer_view(qwen3.tokenizer)
    # "東京 ä ß": 1683 and 253 are the two halves of " ß".
    ids = [102356, 46553, 12709, 1683, 253, 151645]
    out = resolve_logprobs(view, lp(ids), None)
    tokens = [e["token"] for e in out["content"]]
    assert tokens == ["東", "京", " ä", "", " ß", "<|im_end|>"]
    assert out["content"][4]["bytes"] == list(" ß".encode())
    assert out["content"][3]["bytes"] == []
    comp = to_completion_logprobs(out, lp(ids))
    assert comp["text_offset"] == [0, 1, 2, 4, 4, 6]
    assert comp["tokens"] == tokens


def test_correction_context_carries_across_chunks(qwen3) -> None:
    view = tokenizer_view(qwen3.tokenizer)
    first = resolve_logprobs(view, lp([1683]), None)
    assert first["content"][0]["token"] == ""
    second = resolve_logprobs(view, lp([253]), None, initial_context=context_tail([12709], [1683]))
    assert second["content"][0]["token"] == " ß"


def test_top_cut_and_none_without_candidates(qwen3) -> None:
    view = tokenizer_view(qwen3.tokenizer)
    source = lp([32, 33], tops=[[34, 35], [36, 37]])
    out = resolve_logprobs(view, source, 2)
    assert [len(e["top_logprobs"]) for e in out["content"]] == [2, 2]
    assert out["content"][0]["top_logprobs"][1]["token"] == "C"
    empty = GenerateLogProbs.model_validate(
        {"content": [{"token_id": 32, "logprob": -1.0, "top_logprobs": []}]}
    )
    comp = to_completion_logprobs(resolve_logprobs(view, empty, None), empty, initial_offset=5)
    assert comp == {
        "text_offset": [5],
        "token_logprobs": [-1.0],
        "tokens": ["A"],
        "top_logprobs": [None],
    }
    assert resolve_logprobs(view, GenerateLogProbs(), None) == {"content": None}


def test_spm_leading_space_in_token_strings(spm) -> None:
    view = tokenizer_view(spm.tokenizer)
    ids = spm.tokenizer.encode("the cat", add_special_tokens=False)
    out = resolve_logprobs(view, lp(ids), 0)
    assert [e["token"] for e in out["content"]] == [" the", " c", "at"]
    assert all(e["top_logprobs"] == [] for e in out["content"])
