"""tool_choice "none" / no request tools: which engine-based parsers leave the text alone.

vLLM issue #55080 (`tests/parser/test_tool_choice_none_preserves_content.py`) for glm45 and
qwen3_xml, and kimi_k2's reasoning test served with its tool parser: a request without tools
keeps the text. With tools and tool_choice "none" the markup is removed, as in vLLM 0.33.0 and
`tests/parser/engine/test_replay.py`'s suppress mode; the other engine-based parsers keep
vLLM 0.33.0's stripping in both cases (docs/deviations.md).
"""

from __future__ import annotations

import pytest
from vllm_vectors_run import needs_models, output_parser, stream_pieces

from tokenfront.parsers.base import ParseContext

pytestmark = needs_models

HERMES_STYLE = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "SF"}}\n</tool_call>'
KIMI = "some reasoning<|tool_calls_section_begin|>tool call data"


STUB_TOOLS = [{"type": "function", "function": {"name": "stub", "parameters": {"type": "object"}}}]


def _parse(
    parser: str,
    model: str,
    text: str,
    choice: str | None,
    reasoning: str | None = None,
    tools: list[dict] | None = None,
):
    pipeline, tok = output_parser(parser, model, reasoning=reasoning)
    ctx = ParseContext(tools=tools, tool_choice=choice, enable_auto_tools=True)
    return pipeline.parse(text, tok.encode(text, add_special_tokens=False), ctx)


@pytest.mark.parametrize("choice", ["none", None])
@pytest.mark.parametrize(("parser", "model"), [("glm45", "synthetic-multi"), ("qwen3_xml", "qwen3")])
def test_call_markup_stays_content_without_tools(parser: str, model: str, choice: str | None) -> None:
    message = _parse(parser, model, HERMES_STYLE, choice)
    assert message["content"] == HERMES_STYLE
    assert not message["tool_calls"]


@pytest.mark.parametrize("choice", ["none", None])
def test_kimi_k2_keeps_text_after_the_section_marker_without_tools(choice: str | None) -> None:
    message = _parse("kimi_k2", "synthetic-multi", KIMI, choice, reasoning="kimi_k2")
    assert message["reasoning"] == "some reasoning"
    assert message["content"] == "<|tool_calls_section_begin|>tool call data"


def test_qwen3_coder_still_strips_call_markup_under_tool_choice_none() -> None:
    text = "<tool_call>\n<function=get_weather>\n<parameter=city>SF</parameter>\n</function>\n</tool_call>"
    message = _parse("qwen3_coder", "qwen3", text, "none")
    assert not message["content"]


QWEN3_XML_CALL = "<tool_call>\n<function=get_weather>\n<parameter=city>SF</parameter>\n</function>\n</tool_call>"
GLM45_CALL = "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>SF</arg_value>\n</tool_call>"


@pytest.mark.parametrize(
    ("parser", "model", "call"),
    [("glm45", "synthetic-multi", GLM45_CALL), ("qwen3_xml", "qwen3", QWEN3_XML_CALL)],
)
def test_call_markup_is_removed_under_tool_choice_none_with_tools(
    parser: str, model: str, call: str
) -> None:
    message = _parse(parser, model, "Sure. " + call, "none", tools=STUB_TOOLS)
    assert message["content"] == "Sure. "
    assert not message["tool_calls"]


def test_kimi_k2_drops_the_section_under_tool_choice_none_with_tools() -> None:
    message = _parse("kimi_k2", "synthetic-multi", KIMI, "none", reasoning="kimi_k2", tools=STUB_TOOLS)
    assert message["reasoning"] == "some reasoning"
    assert not message["content"]


BEGIN, END = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
EMPTY_SECTION = f"</think>Content after empty tools.{BEGIN}{END}"


def _stream(pieces: list[str], reasoning: str | None = "kimi_k2") -> tuple[str, str]:
    """(content, reasoning) of the text `pieces` streamed without request tools."""
    pipeline, tok = output_parser("kimi_k2", "synthetic-multi", reasoning=reasoning)
    ctx = ParseContext(tools=None, tool_choice=None, enable_auto_tools=True)
    return stream_pieces(pipeline, tok, pieces, ctx)


def test_kimi_k2_drops_a_section_holding_nothing_without_tools() -> None:
    # vLLM 0.33.0 and tests/parser/engine/test_replay.py[kimi_k2-empty-tool-block]: no text is
    # lost, so the kept-text rule does not keep the bare markers.
    message = _parse("kimi_k2", "synthetic-multi", EMPTY_SECTION, None, reasoning="kimi_k2")
    assert message["content"] == "Content after empty tools."
    assert _parse("kimi_k2", "synthetic-multi", f"a{BEGIN} \n{END}b", None)["content"] == "ab"


@pytest.mark.parametrize(
    "pieces",
    [
        ["</think>", "Content after empty tools.", BEGIN, END],
        ["</think>Content after empty tools.", BEGIN + "\n", "\n" + END],
        [EMPTY_SECTION],
    ],
    ids=["marker-per-chunk", "whitespace-inside", "one-chunk"],
)
def test_kimi_k2_stream_drops_a_section_holding_nothing_without_tools(pieces: list[str]) -> None:
    assert _stream(pieces) == ("Content after empty tools.", "")


def test_kimi_k2_stream_releases_a_held_section_start_when_text_follows_or_the_stream_ends() -> None:
    text = f"Hi{BEGIN}tool call data"
    assert _stream(["Hi", BEGIN, "tool call data"], reasoning=None) == (text, "")
    assert _stream(["Hi", BEGIN], reasoning=None) == (f"Hi{BEGIN}", "")
    cut = f"Hi{BEGIN[:6]}"
    assert _stream(["Hi", BEGIN[:6]], reasoning=None) == (cut, "")


@pytest.mark.parametrize(
    ("parser", "reasoning"), [("kimi_k2", "kimi_k2"), ("glm45", "glm45")], ids=["kimi_k2", "glm45"]
)
def test_stream_without_tools_drops_a_repeated_think_end_as_with_tools(
    parser: str, reasoning: str
) -> None:
    # vLLM 0.33.0's engine drops a `</think>` in content (session 30, fuzz_outputs sweep);
    # without request tools the kept text is lexed the same way.
    pipeline, tok = output_parser(parser, "synthetic-multi", reasoning=reasoning)
    pieces = ["<think>r</think>", " x</think>", " y"]
    for tools in (None, STUB_TOOLS):
        ctx = ParseContext(tools=tools, tool_choice=None, enable_auto_tools=True)
        assert stream_pieces(pipeline, tok, pieces, ctx) == (" x y", "r")


def test_stream_without_a_reasoning_parser_keeps_think_end_as_text() -> None:
    pipeline, tok = output_parser("glm45", "synthetic-multi", reasoning=None)
    ctx = ParseContext(tools=None, tool_choice=None, enable_auto_tools=True)
    assert stream_pieces(pipeline, tok, ["r</think>", " x</think>", " y"], ctx) == ("r</think> x</think> y", "")


def test_stream_without_tools_reads_a_reopened_think_block_as_one_shot() -> None:
    # vLLM 0.33.0's glm45 engine reopens the reasoning at a `<think>` in the content, tool
    # parsing skipped or not; the kept text of a request without tools does so too.
    pipeline, tok = output_parser("glm45", "synthetic-multi", reasoning="glm45")
    ctx = ParseContext(tools=None, tool_choice=None, enable_auto_tools=True)
    text = "a</think> x<think> y\n</think>\n\nz"
    ids = tok.encode(text, add_special_tokens=False)
    assert stream_pieces(pipeline, tok, [tok.decode([i]) for i in ids], ctx) == (" x\n\nz", "a y")
    message = pipeline.parse(text, ids, ctx)
    assert (message["content"], message["reasoning"]) == (" x\n\nz", "a y")


@pytest.mark.parametrize(
    ("text", "content", "reasoning"),
    [
        ("a</think><think><tool_call>y", "<tool_call>y", "a"),
        ("<tool_call>x</think><think><tool_call>y", "<tool_call>x<tool_call>y", ""),
    ],
)
def test_a_tool_call_ends_a_reopened_think_block_in_any_chunking(
    text: str, content: str, reasoning: str
) -> None:
    # vLLM 0.33.0's engine leaves the reopened reasoning at `<tool_call>` (and drops the call
    # markup, which a request without tools keeps as content here); one token per chunk the
    # kept text used to read `<tool_call>y` as reasoning (sweep seed 38)
    pipeline, tok = output_parser("glm45", "synthetic-multi", reasoning="glm45")
    ctx = ParseContext(tools=None, tool_choice=None, enable_auto_tools=True)
    ids = tok.encode(text, add_special_tokens=False)
    assert stream_pieces(pipeline, tok, [tok.decode([i]) for i in ids], ctx) == (content, reasoning)
    assert stream_pieces(pipeline, tok, [text], ctx) == (content, reasoning)
    message = pipeline.parse(text, ids, ctx)
    assert (message["content"] or "", message["reasoning"] or "") == (content, reasoning)
