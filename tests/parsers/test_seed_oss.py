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
