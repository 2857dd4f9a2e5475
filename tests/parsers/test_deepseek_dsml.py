"""DSML tool parsers (src/tokenfront/parsers/tools/deepseek_dsml.py): codec details."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tokenfront.parsers.base import ParseContext
from tokenfront.parsers.tools.deepseek_dsml import (
    V4,
    V32,
    DeepSeekV4ToolParser,
    DeepSeekV32ToolParser,
    DsmlParamCodec,
    loads_finite,
)

HEADS = {
    DeepSeekV32ToolParser: '<｜DSML｜function_calls>\n<｜DSML｜invoke name="emit">\n',
    DeepSeekV4ToolParser: '<｜DSML｜tool_calls>\n<｜DSML｜invoke name="emit">\n',
}
TAILS = {
    DeepSeekV32ToolParser: "</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
    DeepSeekV4ToolParser: "</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>",
}


class _NoVocab:
    def get_vocab(self) -> dict[str, int]:
        return {}

    def decode(self, ids: Any, **_: Any) -> str:
        return ""


def _tools(kind: Any) -> list[dict[str, Any]]:
    props = {"text": {"type": kind}}
    return [{"type": "function", "function": {"name": "emit", "parameters": {"properties": props}}}]


@pytest.mark.parametrize("cls", [DeepSeekV32ToolParser, DeepSeekV4ToolParser])
@pytest.mark.parametrize(("kind", "streams"), [("string", True), (["string", "null"], False)])
def test_string_value_streams_before_its_close(cls: Any, kind: Any, streams: bool) -> None:
    ctx = ParseContext(
        tools=_tools(kind), tool_choice="auto", chat_template_kwargs={"thinking": False}
    )
    parser = cls(_NoVocab(), ctx)
    body = 'line "one" <b>\n' * 8
    pieces = [HEADS[cls] + '<｜DSML｜parameter name="text" string="true">']
    pieces += [body[i : i + 7] for i in range(0, len(body), 7)] + [TAILS[cls]]
    state: dict[str, Any] = {}
    early, args = 0, ""
    for i, piece in enumerate(pieces):
        delta = parser.stream(state, piece, ())
        got = "".join(c.arguments or "" for c in (delta.tool_calls if delta else []))
        early += bool(got) and 0 < i < len(pieces) - 1
        args += got
    assert json.loads(args) == {"text": body}
    assert (early > 10) is streams


def test_non_finite_values_keep_their_text() -> None:
    raw = '<｜DSML｜parameter name="a" string="false">1e999</｜DSML｜parameter>'
    raw += '<｜DSML｜parameter name="b">[NaN]</｜DSML｜parameter>'
    raw += '<｜DSML｜parameter name="c">1.5</｜DSML｜parameter>'
    assert json.loads(DsmlParamCodec(V4).convert(raw, False)) == {
        "a": "1e999",
        "b": "[NaN]",
        "c": 1.5,
    }
    assert DsmlParamCodec(V32).convert("", False) == "{}"
    with pytest.raises(ValueError):
        loads_finite("-Infinity")
