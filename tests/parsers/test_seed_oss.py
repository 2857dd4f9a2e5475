"""seed_oss: golden vLLM answers plus own cases."""

from __future__ import annotations

import pytest
from xml_support import (
    check_golden_oneshot,
    check_golden_stream,
    golden,
    make,
    oneshot,
    run_stream,
    token_chunks,
    tokenizer,
    tool,
)

MODEL = "synthetic-multi"
WEATHER = tool("get_weather", {"city": {"type": "string"}, "days": {"type": "integer"}})
ONE = (
    "<seed:tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
    "<parameter=days>\n3\n</parameter>\n</function>\n</seed:tool_call>"
)


def parser(**kw: object):
    kw.setdefault("tools", [WEATHER])
    return make("seed_oss", MODEL, reasoning_parser=True, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("case", golden("seed_oss", "oneshot"), ids=lambda c: c["id"])
def test_golden_oneshot(case: dict) -> None:
    check_golden_oneshot(case)


@pytest.mark.parametrize("case", golden("seed_oss", "stream"), ids=lambda c: c["id"])
def test_golden_stream(case: dict) -> None:
    check_golden_stream(case)


def test_flags() -> None:
    assert parser().supports_required_and_named is True


@pytest.mark.parametrize(
    ("text", "calls", "content"),
    [
        (ONE, [("get_weather", '{"city": "Paris", "days": 3}')], None),
        (
            "Hi.\n<seed:tool_call>\n<function=get_weather>\n</function>\n</seed:tool_call>\nBye.",
            [("get_weather", "{}")],
            "Hi.\n",  # deviation: trailing whitespace kept (test_seed_oss_tool_parser.py)
        ),
        # Qwen's wrapper is plain text here, but a bare <function=...> still opens a call.
        (
            "<tool_call>\n<function=get_weather>\n</function>\n</tool_call>",
            [("get_weather", "{}")],
            "<tool_call>\n",
        ),
        (
            "<seed:tool_call>\n<function=get_weather>\n<parameter=city>\nBer",
            [("get_weather", "{}")],
            None,
        ),
        ("Hi<|im_end|> there", [], "Hi there"),
    ],
)
def test_oneshot(text: str, calls: list, content: str | None) -> None:
    assert oneshot(parser(), text) == (calls, content)


@pytest.mark.parametrize("per", [1, 4, 1000])
def test_stream_matches_oneshot(per: int) -> None:
    content, calls, _ = run_stream(parser(), token_chunks(ONE + "\n" + ONE, MODEL, per))
    assert calls == [("get_weather", '{"city": "Paris", "days": 3}')] * 2
    assert content == ""


@pytest.mark.parametrize("per", [0, 1, 4])
def test_a_think_block_opened_after_text_ends_at_a_quoted_call_as_in_vllm(per: int) -> None:
    # The quoted-call rule (the block's `<seed:tool_call>` stays reasoning) is for outputs that
    # open with `<seed:think>` (vLLM's unlimited thinking budget test); after text the call ends
    # the reasoning as in vLLM 0.33.0 (sweep seed 38): one-shot reasoning `x`, call with `{}`.
    from tokenfront.parsers.base import ParseContext
    from tokenfront.parsers.pipeline import ChatOutputParser

    text = "x<seed:think><seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris</seed:think>"
    p = ChatOutputParser(tokenizer(MODEL), "seed_oss", "seed_oss", enable_auto_tools=True)
    c = ParseContext(tools=[WEATHER], tool_choice="auto")
    if not per:
        msg = p.parse(text, tokenizer(MODEL).encode(text, add_special_tokens=False), c)
        assert msg["reasoning"] == "x"
        assert [(t["function"]["name"], t["function"]["arguments"]) for t in msg["tool_calls"]] == [
            ("get_weather", "{}")
        ]
        return
    chunks = token_chunks(text, MODEL, per)
    state, reasoning, names = None, "", []
    for i, (piece, ids) in enumerate(chunks):
        delta, state = p.stream(state, piece, ids, c, finished=i == len(chunks) - 1)
        if delta is not None:
            reasoning += delta.reasoning or ""
            names += [t.name for t in delta.tool_calls if t.name]
    assert (reasoning, names) == ("x", ["get_weather"])
