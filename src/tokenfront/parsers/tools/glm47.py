"""GLM-4.5 / GLM-4.7 tool calls (`glm45`, `glm47`).

    <tool_call>NAME
    <arg_key>KEY</arg_key>
    <arg_value>VALUE</arg_value>
    </tool_call>

Values are verbatim text typed from the tool schema; calls to functions the request does
not offer are dropped. With thinking switched off the think tags are plain text.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tokenfront.parsers.base import ExtractedToolCalls, ParseContext
from tokenfront.parsers.engines.schema_types import has_tool
from tokenfront.parsers.engines.xml_args import KeyValueCodec
from tokenfront.parsers.engines.xml_params import (
    E_ARGS,
    E_CALL_END,
    E_CALL_START,
    E_REASONING,
    E_REASONING_END,
    E_REASONING_START,
    E_TEXT,
    S_ARGS,
    S_CONTENT,
    S_NAME,
    S_REASONING,
    TOOL_STATES,
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
            # A stray `<tool_call>` before the real one: the phantom call is dropped (vLLM's
            # tests/parser/engine/test_glm47_stray_tool_call.py, #60703; 0.33.0 lost the call).
            (S_NAME, "TOOL_START"): (S_NAME, (E_CALL_END, E_CALL_START)),
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


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
_PLAIN_EVENTS = frozenset({E_TEXT, E_REASONING, E_REASONING_START, E_REASONING_END})


def _plain_content(events: list[Any], unclosed: str) -> str | None:
    """The content of an output whose only call never closed: its text stays content."""
    text = "".join(e[1] for e in events if e[0] == E_TEXT) + unclosed
    return text or None


@tool_parser("glm45")
class Glm45ToolParser(Glm47ToolParser):
    """glm45: like glm47, but a call to a function missing from the request tools is kept.

    Deliberate deviation from vLLM 0.33.0 (which drops such a call and its text), asserted by
    vLLM's tests/tool_parsers/test_glm4_moe_tool_parser.py (docs/deviations.md).
    """

    name = "glm45"
    keeps_text_without_tool_choice = True  # vLLM issue #55080 (docs/deviations.md)

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        """One-shot: a call without its `</tool_call>` is no call.

        When no closed call remains, the output is plain content (the unclosed call's text
        included); otherwise the closed calls are returned and the unclosed tail is dropped.
        Under tool_choice "none" (calls suppressed) the unclosed call is dropped either way, as
        vLLM 0.33.0 and the stream drop it.
        """
        state = self.one_shot_state()
        events = self._feed_marking_calls(state, text)
        if state["st"] in TOOL_STATES and state["ti"] >= 0:
            open_index = state["ti"]
            starts: list[int] = state.pop("g45_starts")
            events = [
                e for e in events if not (e[2] == open_index and e[0] not in _PLAIN_EVENTS)
            ]
            state["st"] = S_CONTENT
            state["lex"], state["scan"] = {}, {}  # text they hold (`<`) is the cut call's too
            if open_index == 0 and not self.suppress_calls:
                return ExtractedToolCalls(False, [], _plain_content(events, text[starts[0] :]))
        state.pop("g45_starts", None)
        events.extend(self.finish_events(state))
        delta = self.events_to_delta(state, events, finished=True)
        calls = self._collect_calls(state)
        content = delta.content if delta else None
        if content:
            content = self._final_content(content, bool(calls))
        return ExtractedToolCalls(tools_called=bool(calls), tool_calls=calls, content=content)

    def _final_content(self, content: str, tools_called: bool) -> str | None:
        # The text before the first call keeps its trailing whitespace (vLLM 0.33.0 strips
        # both ends); leading whitespace goes as in 0.33.0.
        if tools_called:
            content = content.lstrip()
        return content or None

    def _feed_marking_calls(self, state: dict[str, Any], text: str) -> list[Any]:
        """Feed `text`, recording where each recognised `<tool_call>` starts in it."""
        starts: list[int] = []
        events: list[Any] = []
        opener = _CALL["TOOL_START"]
        cut = 0
        pos = text.find(opener)
        while pos != -1:
            events.extend(self.feed(state, text[cut:pos], ()))
            before = state["ti"]
            piece_end = pos + len(opener)
            events.extend(self.feed(state, text[pos:piece_end], ()))
            if state["ti"] > before:
                starts.append(pos)
            cut = piece_end
            pos = text.find(opener, cut)
        events.extend(self.feed(state, text[cut:], ()))
        state["g45_starts"] = starts
        return events

    def _accept_name(self, name: str) -> bool:
        # Only identifier-like names: markup or JSON a model wrote in the name slot stays
        # rejected exactly as vLLM 0.33.0 rejects it.
        return super()._accept_name(name) or _IDENTIFIER.fullmatch(name) is not None

    def _send_name(self, slot: dict[str, Any], name: str) -> None:
        super()._send_name(slot, name)
        if self.tools is not None and not has_tool(self.tools, name):
            # Values of an undeclared function are decoded once complete: none streams open.
            slot["keys"] = []

    def convert_args(self, raw: str, partial: bool, name: str) -> str:
        converted = super().convert_args(raw, partial, name)
        if not name or self.tools is None or has_tool(self.tools, name):
            return converted
        # No schema for an undeclared function: JSON-looking values are decoded
        # (test_extract_tool_calls_numeric_deserialization).
        try:
            args = json.loads(converted)
        except ValueError:
            return converted
        if not isinstance(args, dict):
            return converted
        for key, value in args.items():
            if isinstance(value, str):
                try:
                    args[key] = json.loads(value)
                except ValueError:
                    pass
        return json.dumps(args, ensure_ascii=False)
