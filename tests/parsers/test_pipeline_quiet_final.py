"""pipeline: a stream whose final chunk is the first to send anything and opens a call that
one-shot rejects sends one-shot's answer (the call is never half-sent)."""

from __future__ import annotations

from typing import Any

import pytest
from test_pipeline import ctx, joined, parser, stream_all

from tokenfront.parsers.pipeline import ChatOutputParser

CUT = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}'
WHOLE = CUT + "}\n</tool_call>"


def hermes() -> ChatOutputParser:
    return parser("hermes", None)


def one_shot(p: ChatOutputParser, text: str) -> dict[str, Any]:
    return p.parse(text, [], ctx())


def test_cut_call_in_one_final_chunk_is_one_shots_content() -> None:
    p = hermes()
    assert one_shot(p, CUT)["tool_calls"] == []
    got = joined(stream_all(p, CUT, ctx(), per=1000))
    assert got == {"content": CUT, "reasoning": None, "calls": []}


def test_whole_call_in_one_final_chunk_stays_a_call() -> None:
    got = joined(stream_all(hermes(), WHOLE, ctx(), per=1000))
    assert got["calls"] == [("get_weather", '{"city": "Paris"}')]


@pytest.mark.parametrize("per", [1, 3])
def test_name_sent_before_the_final_chunk_is_kept(per: int) -> None:
    # vLLM 0.33.0 streams the name as soon as it is complete (tf-hermes-cut_off-stream)
    got = joined(stream_all(hermes(), CUT, ctx(), per))
    assert [name for name, _ in got["calls"]] == ["get_weather"]


def test_a_reasoning_split_one_shot_reads_differently_rejects_no_call() -> None:
    # deepseek_r1's one-shot reading ignores a prompt that closed the reasoning (vLLM 0.33.0):
    # its "no call" is a different reasoning split, not a rejected call, so the whole output
    # in one chunk streams as one token per chunk does (content, then the call).
    from test_pipeline import PROMPT_CLOSED

    p = parser("hermes", "deepseek_r1")
    c = ctx(prompt_token_ids=PROMPT_CLOSED)
    text = "Sure." + WHOLE
    assert p.parse(text, [], c)["tool_calls"] == []  # all reasoning one-shot
    call = ("get_weather", '{"city": "Paris"}')
    expected = {"content": "Sure.", "reasoning": None, "calls": [call]}
    assert joined(stream_all(p, text, c, per=1)) == expected
    assert joined(stream_all(p, text, c, per=1000)) == expected
