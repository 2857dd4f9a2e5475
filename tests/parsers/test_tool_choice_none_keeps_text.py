"""tool_choice "none" / no request tools: which engine-based parsers leave the text alone.

vLLM issue #55080 (`tests/parser/test_tool_choice_none_preserves_content.py`) for glm45 and
qwen3_xml, and kimi_k2's reasoning test served with its tool parser; the other engine-based
parsers keep vLLM 0.33.0's stripping (docs/deviations.md).
"""

from __future__ import annotations

import pytest
from vllm_vectors_run import needs_models, output_parser

from tokenfront.parsers.base import ParseContext

pytestmark = needs_models

HERMES_STYLE = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "SF"}}\n</tool_call>'
KIMI = "some reasoning<|tool_calls_section_begin|>tool call data"


def _parse(parser: str, model: str, text: str, choice: str | None, reasoning: str | None = None):
    pipeline, tok = output_parser(parser, model, reasoning=reasoning)
    ctx = ParseContext(tools=None, tool_choice=choice, enable_auto_tools=True)
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
