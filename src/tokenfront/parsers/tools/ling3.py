"""ling3: Ling 3 tool calls, the GLM-4.7 `<tool_call>NAME<arg_key>..` format.

Thinking is on unless `thinking` / `enable_thinking` is given and falsy; unlike GLM, no chat
template can force it on.
"""

from __future__ import annotations

from tokenfront.parsers.base import ParseContext
from tokenfront.parsers.engines.reasoning_grammar import think_toggle_default_on
from tokenfront.parsers.engines.xml_params import Grammar
from tokenfront.parsers.registry import tool_parser
from tokenfront.parsers.tools.glm47 import GLM_NO_THINKING, GLM_THINKING, Glm47ToolParser


@tool_parser("ling3")
class Ling3ToolParser(Glm47ToolParser):
    name = "ling3"

    def grammar_for(self, ctx: ParseContext) -> Grammar:
        thinking = think_toggle_default_on(ctx.chat_template_kwargs or {})
        return GLM_THINKING if thinking else GLM_NO_THINKING
