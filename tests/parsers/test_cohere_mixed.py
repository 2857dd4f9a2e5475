"""cohere_command3 and cohere_command4 configured together (vLLM takes the reasoning parser's preset)."""

from __future__ import annotations

import pytest

from tokenfront.parsers.pipeline import ChatOutputParser
from tokenfront.parsers.tools.cohere_command import COMMAND3, COMMAND4


@pytest.mark.parametrize(("tool", "reasoning", "family"), [
    ("cohere_command3", "cohere_command4", COMMAND4),
    ("cohere_command4", "cohere_command3", COMMAND3),
])
def test_mixed_presets_follow_the_reasoning_parser(tool: str, reasoning: str, family: type) -> None:
    parser = ChatOutputParser(None, tool, reasoning, enable_auto_tools=True)  # type: ignore[arg-type]
    assert parser.whole_output is family


def test_tool_preset_without_a_reasoning_parser() -> None:
    parser = ChatOutputParser(None, "cohere_command4", None, enable_auto_tools=True)  # type: ignore[arg-type]
    assert parser.whole_output is COMMAND4


def test_template_parsers_still_refuse_other_families() -> None:
    with pytest.raises(Exception, match="cannot be combined"):
        ChatOutputParser(None, "cohere_command3", "hf", enable_auto_tools=True)  # type: ignore[arg-type]
