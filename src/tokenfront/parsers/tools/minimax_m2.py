"""MiniMax-M2 tool calls: `<invoke>` blocks inside one `<minimax:tool_call>` section.

    <minimax:tool_call>
    <invoke name="NAME">
    <parameter name="KEY">VALUE</parameter>
    </invoke>
    </minimax:tool_call>

Values are verbatim text typed from the tool schema; unknown functions are dropped.
"""

from __future__ import annotations

from tokenfront.parsers.engines.xml_args import NamedParamCodec
from tokenfront.parsers.engines.xml_params import (
    E_ARGS,
    E_CALL_END,
    E_CALL_START,
    E_REASONING_END,
    S_ARGS,
    S_BETWEEN,
    S_CONTENT,
    S_NAME,
    S_PREAMBLE,
    S_REASONING,
    Grammar,
    MarkupToolParser,
)
from tokenfront.parsers.registry import tool_parser

_INVOKES = ("INVOKE_DQ", "INVOKE_SQ", "INVOKE_BARE")
_NAME_ENDS = ("NAME_END_DQ", "NAME_END_SQ", "NAME_END_BARE")

MINIMAX_M2 = Grammar(
    name="minimax_m2",
    terminals={
        "THINK_START": "<think>", "THINK_END": "</think>",
        "TOOL_START": "<minimax:tool_call>", "TOOL_END": "</minimax:tool_call>",
        "PARAM_START": "<parameter name=", "PARAM_END": "</parameter>",
        "INVOKE_DQ": '<invoke name="', "INVOKE_SQ": "<invoke name='", "INVOKE_BARE": "<invoke name=",
        "INVOKE_END": "</invoke>",
        "NAME_END_DQ": '">', "NAME_END_SQ": "'>", "NAME_END_BARE": ">",
    },
    token_terminals={
        "THINK_START": "<think>", "THINK_END": "</think>",
        "TOOL_START": "<minimax:tool_call>", "TOOL_END": "</minimax:tool_call>",
    },
    transitions={
        (S_REASONING, "THINK_START"): (S_REASONING, ()),
        (S_REASONING, "THINK_END"): (S_CONTENT, (E_REASONING_END,)),
        (S_CONTENT, "THINK_END"): (S_CONTENT, ()),
        (S_REASONING, "TOOL_START"): (S_PREAMBLE, (E_REASONING_END,)),
        (S_CONTENT, "TOOL_START"): (S_PREAMBLE, ()),
        (S_ARGS, "PARAM_START"): (S_ARGS, (E_ARGS,)),
        (S_ARGS, "PARAM_END"): (S_ARGS, (E_ARGS,)),
        (S_PREAMBLE, "TOOL_END"): (S_CONTENT, ()),
        (S_BETWEEN, "TOOL_END"): (S_CONTENT, ()),
        (S_CONTENT, "TOOL_END"): (S_CONTENT, ()),
        (S_ARGS, "INVOKE_END"): (S_BETWEEN, (E_CALL_END,)),
        **{(s, t): (S_NAME, (E_CALL_START,)) for s in (S_CONTENT, S_PREAMBLE, S_BETWEEN) for t in _INVOKES},
        **{(S_NAME, t): (S_ARGS, ()) for t in _NAME_ENDS},
    },
    codec=NamedParamCodec(),
    validate_tool_names=True,
)  # fmt: skip


@tool_parser("minimax_m2")
class MinimaxM2ToolParser(MarkupToolParser):
    name = "minimax_m2"
    grammar = MINIMAX_M2
    supports_required_and_named = False
    forced_json_unless_strict = True
