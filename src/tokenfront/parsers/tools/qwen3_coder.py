"""Qwen3-Coder XML tool calls (`qwen3_coder`, `qwen3_xml`).

    <tool_call>
    <function=NAME>
    <parameter=KEY>
    VALUE
    </parameter>
    </function>
    </tool_call>

One wrapping newline of each value is markup; values are typed from the tool schema.
"""

from __future__ import annotations

from tokenfront.parsers.base import JSONState
from tokenfront.parsers.engines.xml_args import EqualsParamCodec
from tokenfront.parsers.engines.xml_params import (
    E_ARGS,
    E_CALL_END,
    E_CALL_START,
    E_NAME,
    E_REASONING_END,
    S_ARGS,
    S_BETWEEN,
    S_CONTENT,
    S_NAME,
    S_PREAMBLE,
    S_REASONING,
    Event,
    Grammar,
    MarkupToolParser,
)
from tokenfront.parsers.registry import tool_parser
from tokenfront.parsers.tools.qwen3_values import fix_qwen3_values

# Marks a function name that no `>` closed (or a template placeholder): never a call.
_BAD_NAME = "\x00"


def function_markup_grammar(name: str, think: tuple[str, str], call: tuple[str, str]) -> Grammar:
    """The `<function=...>` / `<parameter=...>` grammar inside the given think and call wrappers."""
    return Grammar(
        name=name,
        terminals={
            "THINK_START": think[0], "THINK_END": think[1],
            "TOOL_START": call[0], "TOOL_END": call[1],
            "FUNC_PREFIX": "<function=", "FUNC_END": "</function>",
            "PARAM_START": "<parameter=", "PARAM_END": "</parameter>",
            "CLOSE_ANGLE": ">",
        },
        token_terminals={
            "THINK_START": think[0], "THINK_END": think[1],
            "TOOL_START": call[0], "TOOL_END": call[1],
        },
        transitions={
            (S_REASONING, "THINK_START"): (S_REASONING, ()),
            (S_REASONING, "THINK_END"): (S_CONTENT, (E_REASONING_END,)),
            (S_CONTENT, "THINK_END"): (S_CONTENT, ()),
            (S_REASONING, "TOOL_START"): (S_PREAMBLE, (E_REASONING_END, E_CALL_START)),
            (S_CONTENT, "TOOL_START"): (S_PREAMBLE, (E_REASONING_END, E_CALL_START)),
            # A bare <function=...> without the call wrapper still opens a call.
            (S_CONTENT, "FUNC_PREFIX"): (S_NAME, (E_CALL_START,)),
            (S_PREAMBLE, "TOOL_END"): (S_CONTENT, (E_CALL_END,)),
            (S_PREAMBLE, "FUNC_PREFIX"): (S_NAME, ()),
            (S_NAME, "CLOSE_ANGLE"): (S_ARGS, ()),
            # Unterminated names: the next structural tag closes the call.
            (S_NAME, "FUNC_END"): (S_BETWEEN, (E_CALL_END,)),
            (S_NAME, "TOOL_END"): (S_CONTENT, (E_CALL_END,)),
            (S_NAME, "TOOL_START"): (S_PREAMBLE, (E_CALL_END, E_CALL_START)),
            (S_NAME, "FUNC_PREFIX"): (S_NAME, (E_CALL_END, E_CALL_START)),
            (S_ARGS, "FUNC_END"): (S_BETWEEN, (E_CALL_END,)),
            (S_ARGS, "FUNC_PREFIX"): (S_NAME, (E_CALL_END, E_CALL_START)),
            (S_ARGS, "PARAM_START"): (S_ARGS, (E_ARGS,)),
            (S_ARGS, "PARAM_END"): (S_ARGS, (E_ARGS,)),
            (S_BETWEEN, "TOOL_END"): (S_CONTENT, ()),
            (S_BETWEEN, "TOOL_START"): (S_PREAMBLE, (E_CALL_START,)),
            (S_BETWEEN, "FUNC_PREFIX"): (S_NAME, (E_CALL_START,)),
        },
        codec=EqualsParamCodec(),
        strip_trailing_reasoning_ws=False,
    )  # fmt: skip


QWEN3_CODER = function_markup_grammar(
    "qwen3", ("<think>", "</think>"), ("<tool_call>", "</tool_call>")
)


@tool_parser("qwen3_coder", "qwen3_xml")
class Qwen3CoderToolParser(MarkupToolParser):
    name = "qwen3_coder"
    grammar = QWEN3_CODER
    supports_required_and_named = False  # structural-tag model in vLLM

    # Deviations from vLLM 0.33.0 asserted by vLLM's own tests (docs/deviations.md).

    def convert_args(self, raw: str, partial: bool, name: str) -> str:
        return fix_qwen3_values(super().convert_args(raw, partial, name), self.tools, name)

    def _terminal(self, state: JSONState, terminal: str, text: str) -> list[Event]:
        unterminated = (
            state["st"] == S_NAME
            and terminal != "CLOSE_ANGLE"
            and (S_NAME, terminal) in self.g.transitions
            and not (self.skip_reasoning_parsing and terminal in self.g.reasoning_markup)
        )
        events = super()._terminal(state, terminal, text)
        if unterminated:
            # `<function=bad_name` with no `>`: test_none_tool_calls_filtered.
            return [(E_NAME, _BAD_NAME, events[0][2] if events else state["ti"]), *events]
        return events

    def _accept_name(self, name: str) -> bool:
        # `<function={{ tc.name }}>` is an unrendered template, not a call:
        # test_jinja_template_phantom_tool_call_is_rejected_nonstreaming.
        if _BAD_NAME in name or ("{{" in name and "}}" in name):
            return False
        return super()._accept_name(name)
