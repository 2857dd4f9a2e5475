"""deepseek_v4's bare-invoke gate (src/tokenfront/parsers/tools/dsml_orphans.py)."""

from __future__ import annotations

from typing import Any

from tokenfront.parsers.base import ParseContext
from tokenfront.parsers.tools.deepseek_dsml import DeepSeekV4ToolParser
from tokenfront.parsers.tools.dsml_orphans import prefix_tail

INVOKE = '<｜DSML｜invoke name="get_weather">\n<｜DSML｜parameter name="city" string="true">Seoul</｜DSML｜parameter>\n</｜DSML｜invoke>'
TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}
]


class _NoVocab:
    def get_vocab(self) -> dict[str, int]:
        return {}

    def decode(self, ids: Any, **_: Any) -> str:
        return ""


def _parser(tools: list[dict[str, Any]] | None, choice: str = "auto") -> DeepSeekV4ToolParser:
    ctx = ParseContext(tools=tools, tool_choice=choice, chat_template_kwargs={"thinking": False})
    return DeepSeekV4ToolParser(_NoVocab(), ctx)


def _stream(parser: DeepSeekV4ToolParser, pieces: list[str]) -> tuple[str, list[str]]:
    state: dict[str, Any] = {}
    content, names = "", []
    deltas = [parser.stream(state, piece, ()) for piece in pieces] + [parser.finish(state)]
    for delta in deltas:
        if delta is not None:
            content += delta.content or ""
            names += [c.name for c in delta.tool_calls or [] if c.name]
    return content, names


def test_prefix_tail() -> None:
    assert prefix_tail("abc<｜DS", "<｜DSML｜invoke") == 4
    assert prefix_tail("abc", "<｜DSML｜invoke") == 0
    assert prefix_tail("x<", "<｜DSML｜invoke") == 1


def test_declared_closed_invoke_is_a_call() -> None:
    result = _parser(TOOLS).extract_tool_calls("Checking.\n" + INVOKE)
    assert [c.name for c in result.tool_calls] == ["get_weather"]
    assert result.content == "Checking.\n"


def test_undeclared_or_unclosed_invoke_stays_content() -> None:
    for parser, text in [
        (_parser(None), INVOKE),
        (_parser(TOOLS, "none"), INVOKE),
        (_parser(TOOLS), INVOKE.removesuffix("</｜DSML｜invoke>")),
        (_parser(TOOLS), 'Docs <｜DSML｜invoke name="get_wea'),
    ]:
        result = parser.extract_tool_calls(text)
        assert not result.tools_called
        assert result.content == text


def test_streamed_invoke_is_held_until_decided() -> None:
    content, names = _stream(_parser(TOOLS), ["Checking.\n<｜DS", *_split(INVOKE[4:])])
    assert (content, names) == ("Checking.\n", ["get_weather"])
    content, _ = _stream(_parser(None), ["Checking.\n<｜DS", *_split(INVOKE[4:])])
    assert content == "Checking.\n<｜DS" + INVOKE[4:]


def _split(text: str, size: int = 5) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]
