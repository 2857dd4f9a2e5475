"""GLM-4.5 / GLM-4.7 tool calls (`glm45`, `glm47`).

    <tool_call>NAME
    <arg_key>KEY</arg_key>
    <arg_value>VALUE</arg_value>
    </tool_call>

Values are verbatim text typed from the tool schema; calls to functions the request does
not offer are dropped. With thinking switched off the think tags are plain text.
"""

from __future__ import annotations

from typing import Any

from tokenfront.parsers.base import ParseContext
from tokenfront.parsers.engines.xml_args import KeyValueCodec
from tokenfront.parsers.engines.xml_params import (
    E_ARGS,
    E_CALL_END,
    E_CALL_START,
    E_REASONING_END,
    E_REASONING_START,
    S_ARGS,
    S_CONTENT,
    S_NAME,
    S_REASONING,
    Grammar,
    MarkupToolParser,
)
from tokenfront.parsers.registry import tool_parser

_THINK = {"THINK_START": "<think>", "THINK_END": "</think>"}
_CALL = {"TOOL_START": "<tool_call>", "TOOL_END": "</tool_call>"}
_ARG_TAGS = {
    "ARG_KEY_START": "<arg_key>", "ARG_KEY_END": "</arg_key>",
    "ARG_VALUE_START": "<arg_value>", "ARG_VALUE_END": "</arg_value>",
}  # fmt: skip


def glm_grammar(thinking: bool) -> Grammar:
    think_transitions = {
        (S_CONTENT, "THINK_START"): (S_REASONING, (E_REASONING_START,)),
        (S_REASONING, "THINK_END"): (S_CONTENT, (E_REASONING_END,)),
        (S_CONTENT, "THINK_END"): (S_CONTENT, ()),
    }
    return Grammar(
        name="glm47_moe",
        terminals={**(_THINK if thinking else {}), **_CALL, **_ARG_TAGS},
        token_terminals={**(_THINK if thinking else {}), **_CALL},
        transitions={
            **(think_transitions if thinking else {}),
            (S_REASONING, "THINK_START"): (S_REASONING, ()),
            (S_REASONING, "TOOL_START"): (S_NAME, (E_REASONING_END, E_CALL_START)),
            (S_CONTENT, "TOOL_START"): (S_NAME, (E_CALL_START,)),
            (S_NAME, "ARG_KEY_START"): (S_ARGS, (E_ARGS,)),
            (S_NAME, "TOOL_END"): (S_CONTENT, (E_CALL_END,)),
            (S_ARGS, "TOOL_END"): (S_CONTENT, (E_CALL_END,)),
            **{(S_ARGS, tag): (S_ARGS, (E_ARGS,)) for tag in _ARG_TAGS},
        },
        codec=KeyValueCodec(),
        validate_tool_names=True,
        strip_tool_names=True,
    )


GLM_THINKING = glm_grammar(thinking=True)
GLM_NO_THINKING = glm_grammar(thinking=False)


@tool_parser("glm45", "glm47")
class Glm47ToolParser(MarkupToolParser):
    name = "glm47"
    grammar = GLM_THINKING
    supports_required_and_named = False

    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        self._always_thinks = _always_thinks(tokenizer)
        super().__init__(tokenizer, ctx)

    def grammar_for(self, ctx: ParseContext) -> Grammar:
        kwargs = ctx.chat_template_kwargs or {}
        thinking, enable = kwargs.get("thinking"), kwargs.get("enable_thinking")
        if thinking is None and enable is None or self._always_thinks:
            return GLM_THINKING
        return GLM_THINKING if bool(thinking) or bool(enable) else GLM_NO_THINKING


def _always_thinks(tokenizer: Any) -> bool:
    """GLM-5.3 templates have no thinking switch (reasoning is always on), so it is ignored."""
    template = getattr(tokenizer, "chat_template", None)
    return (
        isinstance(template, str)
        and "[gMASK]<sop>" in template
        and "Reasoning Effort:" in template
        and "enable_thinking" not in template
        and all(tag in template for tag in ("<tool_call>", "<arg_key>", "<arg_value>"))
    )
