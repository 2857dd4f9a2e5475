"""vLLM's `tool_args_json` for the markup engine: JSON argument text streamed character-wise.

Formats whose call arguments are a JSON object written inside markup (PLaMo 3, Inkling) stream
it as the model writes it, except that a closing brace or bracket that brings the nesting back
to the top level is held until more argument text, the end of the argument region or the end
of the output confirms it. `JsonArgsMixin` adds that to a `MarkupToolParser` subclass; the
scanner state is a small dict in the parser state (`json`).
"""

from __future__ import annotations

from typing import Any

from tokenfront.parsers.base import JSONState
from tokenfront.parsers.engines.json_array import held_json_char
from tokenfront.parsers.engines.xml_params import (
    E_ARGS,
    E_CALL_END,
    S_ARGS,
    Event,
    MarkupToolParser,
)


def json_scan() -> dict[str, Any]:
    return {"buf": "", "depth": 0, "instr": False, "esc": False}


def feed_json(scan: dict[str, Any], text: str) -> str:
    """Argument text that is safe to stream; a top-level closer stays in `scan["buf"]`."""
    return "".join([held_json_char(scan, ch, "buf") for ch in text])


class JsonArgsMixin(MarkupToolParser):
    """Put before `MarkupToolParser` in a parser's bases."""

    def initial_state(self, start: str = "CONTENT") -> JSONState:
        state = super().initial_state(start)
        state["json"] = json_scan()
        return state

    def _emit(self, state: JSONState, text: str) -> list[Event]:
        if state["st"] != S_ARGS:
            return super()._emit(state, text)
        safe = feed_json(state["json"], text)
        return [(E_ARGS, safe, state["ti"])] if safe else []

    def _terminal(self, state: JSONState, terminal: str, text: str) -> list[Event]:
        held: list[Event] = []
        transition = self.g.transitions.get((state["st"], terminal))
        if state["st"] == S_ARGS and transition is not None and transition[0] != S_ARGS:
            if state["json"]["buf"]:
                held.append((E_ARGS, state["json"]["buf"], state["ti"]))
        events = super()._terminal(state, terminal, text)
        if transition is not None and state["st"] == S_ARGS:
            state["json"] = json_scan()
        elif held:
            state["json"]["buf"] = ""
        return held + events

    def finish_events(self, state: JSONState) -> list[Event]:
        events = super().finish_events(state)
        held = state["json"]["buf"]
        if held:
            state["json"]["buf"] = ""
            at = len(events) - 1 if events and events[-1][0] == E_CALL_END else len(events)
            events.insert(at, (E_ARGS, held, state["ti"]))
        return events
