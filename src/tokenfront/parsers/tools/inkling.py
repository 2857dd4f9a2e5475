"""`inkling`: Inkling typed content blocks, tool calls as `{"name", "args"}` JSON blocks.

    <|message_model|><|content_thinking|>...reasoning...<|end_message|>
    <|message_model|><|content_text|>...visible text...<|end_message|>
    <|message_model|><|content_invoke_tool_json|>{"name":"get_weather","args":{"city":"SF"}}<|end_message|>

Every marker is a special token; blocks repeat in any order and `<|content_model_end_sampling|>`
may also end one. Text after `<|message_model|>` and before a block kind is a message header:
it is dropped when a block opens and only surfaces as content when the header is closed
directly (or the output ends in it). The call name comes from the JSON, the arguments are
the verbatim `args` object, streamed as written (top-level closer held). The prompt tail
decides where the reasoning pass starts (thinking, text or a model header).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tokenfront.parsers.base import JSONState
from tokenfront.parsers.engines.json_args_stream import JsonArgsMixin
from tokenfront.parsers.engines.json_scan import member_object_span
from tokenfront.parsers.engines.xml_params import (
    E_CALL_END,
    E_CALL_START,
    E_REASONING_END,
    E_REASONING_START,
    E_TEXT,
    S_ARGS,
    S_CONTENT,
    S_REASONING,
    Event,
    Grammar,
)
from tokenfront.parsers.registry import tool_parser

HEADER = "MESSAGE_HEADER"
MESSAGE_MODEL = "<|message_model|>"
CONTENT_TEXT = "<|content_text|>"
CONTENT_THINKING = "<|content_thinking|>"
END_SAMPLING = "<|content_model_end_sampling|>"
END_MESSAGE = "<|end_message|>"
TERMINALS = {
    "MSG_MODEL": MESSAGE_MODEL,
    "TEXT_START": CONTENT_TEXT,
    "THINK_START": CONTENT_THINKING,
    "THINK_END": END_MESSAGE,
    "END_SAMPLING": END_SAMPLING,
    "TOOL_START": "<|content_invoke_tool_json|>",
    "TOOL_TEXT": "<|content_invoke_tool_text|>",
    "TOOL_ERROR": "<|content_tool_error|>",
}


def _rows() -> dict[tuple[str, str], tuple[str, tuple[str, ...]]]:
    rows: dict[tuple[str, str], tuple[str, tuple[str, ...]]] = {
        (S_CONTENT, "MSG_MODEL"): (HEADER, ()),
        (HEADER, "MSG_MODEL"): (HEADER, ()),
        (S_REASONING, "THINK_START"): (S_REASONING, ()),
        (S_REASONING, "TOOL_START"): (S_ARGS, (E_REASONING_END, E_CALL_START)),
    }
    for state in (S_CONTENT, HEADER):
        rows[(state, "TEXT_START")] = (S_CONTENT, (E_REASONING_END,))
        rows[(state, "THINK_START")] = (S_REASONING, (E_REASONING_START,))
        rows[(state, "TOOL_START")] = (S_ARGS, (E_REASONING_END, E_CALL_START))
        rows[(state, "TOOL_TEXT")] = (S_CONTENT, (E_REASONING_END,))
        rows[(state, "TOOL_ERROR")] = (S_CONTENT, (E_REASONING_END,))
    for end in ("THINK_END", "END_SAMPLING"):
        rows[(S_CONTENT, end)] = (S_CONTENT, ())
        rows[(S_REASONING, end)] = (S_CONTENT, () if end == "THINK_END" else (E_REASONING_END,))
        rows[(S_ARGS, end)] = (S_CONTENT, (E_CALL_END,))
        rows[(HEADER, end)] = (S_CONTENT, (E_TEXT,))
    return rows


TRANSITIONS = _rows()


class InklingArgs:
    """The `args` object carved out of the call JSON, verbatim (prefix-stable)."""

    def convert(self, raw: str, partial: bool) -> str:
        span = member_object_span(raw, "args")
        if span is None:
            return "" if partial else "{}"
        return span

    def open_value(self, raw: str) -> None:
        return None

    def extend(self, state: Any, delta: str) -> None:
        return None


GRAMMAR = Grammar(
    name="inkling",
    terminals=TERMINALS,
    transitions=TRANSITIONS,
    codec=InklingArgs(),
    strip_content_ws_with_tools=False,
)


def inkling_start(prompt_ids: Sequence[int] | None, vocab_id: Any, default: str) -> str:
    """Where the output starts: the last Inkling block token of the prompt decides."""
    thinking, text, model = (vocab_id(t) for t in (CONTENT_THINKING, CONTENT_TEXT, MESSAGE_MODEL))
    specials = {vocab_id(t) for t in (*TERMINALS.values(),)} - {None}
    for tid in reversed(list(prompt_ids or ())):
        if tid == thinking:
            return S_REASONING
        if tid == text:
            return S_CONTENT
        if tid == model:
            return HEADER
        if tid in specials:
            break
    return default


@tool_parser("inkling")
class InklingToolParser(JsonArgsMixin):
    name = "inkling"
    grammar = GRAMMAR
    supports_required_and_named = False
    json_body_args_keys = ("args", "arguments", "parameters")
    one_shot_keeps_deferred = True  # vLLM's InklingParser appends the deferred content

    def initial_state(self, start: str = S_CONTENT) -> JSONState:
        # vLLM's tool adapter starts the engine in content (reasoning was split off first).
        state = super().initial_state(start)
        state["mh"] = ""
        return state

    def _emit(self, state: JSONState, text: str) -> list[Event]:
        if state["st"] == HEADER:
            state["mh"] += text
            return []
        return super()._emit(state, text)

    def _terminal(self, state: JSONState, terminal: str, text: str) -> list[Event]:
        if state["st"] != HEADER or (HEADER, terminal) not in self.g.transitions:
            return super()._terminal(state, terminal, text)
        header, state["mh"] = state["mh"], ""
        events = super()._terminal(state, terminal, text)
        out: list[Event] = []
        for kind, value, index in events:
            if kind != E_TEXT:
                out.append((kind, value, index))
            elif header:
                out.append((kind, header, index))
        return out

    def finish_events(self, state: JSONState) -> list[Event]:
        events = super().finish_events(state)
        if state["st"] == HEADER:
            if state["mh"]:
                events.append((E_TEXT, state["mh"], state["ti"]))
                state["mh"] = ""
            state["st"] = S_CONTENT
        return events
