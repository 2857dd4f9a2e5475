"""DeepSeek V4: an `<｜DSML｜invoke name="...">` outside a `<｜DSML｜tool_calls>` block.

Such an "orphan" invoke is a call only when the request declares that tool (and tool_choice is
not "none") and the invoke is closed by `</｜DSML｜invoke>`; otherwise its text stays content
(vLLM's tests/parser/engine/test_deepseek_v4_malformed_recovery.py). Streaming therefore holds
the text from the invoke prefix until that is known; the end of the stream releases it as
content.

State keys (in the tool parser's JSON state): `ob` held text (an orphan candidate, or a tail
that may still grow into the invoke prefix), `oh` whether `ob` is a candidate, `oo` set while
a committed candidate is fed to the grammar.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from tokenfront.parsers.base import JSONState
from tokenfront.parsers.engines.schema_types import has_tool
from tokenfront.parsers.engines.xml_params import S_CONTENT, Event, MarkupToolParser

INVOKE_TERMINAL = "INVOKE_PREFIX"
NAME_END = '">'


def prefix_tail(text: str, prefix: str) -> int:
    """Length of the longest suffix of `text` that is a proper prefix of `prefix`."""
    for size in range(min(len(text), len(prefix) - 1), 0, -1):
        if prefix.startswith(text[-size:]):
            return size
    return 0


class OrphanInvokeGate(MarkupToolParser):
    """A DSML tool parser whose bare invokes need a declared tool and a closing tag."""

    invoke_prefix: ClassVar[str]
    invoke_end: ClassVar[str]

    def orphan_allowed(self, name: str) -> bool:
        tools = self.ctx.tools
        return bool(tools) and self.ctx.tool_choice != "none" and has_tool(tools, name)

    def orphan_verdict(self, held: str) -> tuple[int, bool] | None:
        """For held text starting with the invoke prefix: (length to feed, commit) or None to wait."""
        name_end = held.find(NAME_END, len(self.invoke_prefix))
        if name_end < 0:
            return None
        name = held[len(self.invoke_prefix) : name_end]
        if not self.orphan_allowed(name):
            return name_end + len(NAME_END), False
        close = held.find(self.invoke_end, name_end)
        if close < 0:
            return None
        return close + len(self.invoke_end), True

    def feed(self, state: JSONState, text: str, ids: Sequence[int]) -> list[Event]:
        if self.skip_tool_parsing or (state["st"] != S_CONTENT and not state.get("ob")):
            return super().feed(state, text, ids)
        buf = state.get("ob", "") + text
        state["ob"] = ""
        pending: Sequence[int] = ids
        events: list[Event] = []
        while buf:
            if state["st"] != S_CONTENT and not state.get("oh"):
                events.extend(super().feed(state, buf, pending))
                return events
            if not state.get("oh"):
                at = buf.find(self.invoke_prefix)
                if at < 0:
                    keep = prefix_tail(buf, self.invoke_prefix)
                    head, state["ob"] = buf[: len(buf) - keep], buf[len(buf) - keep :]
                    if head or pending:
                        events.extend(super().feed(state, head, pending))
                    return events
                if at > 0:
                    events.extend(super().feed(state, buf[:at], pending))
                    pending, buf = (), buf[at:]
                    continue
                state["oh"] = True
            verdict = self.orphan_verdict(buf)
            if verdict is None:
                state["ob"] = buf
                return events
            cut, commit = verdict
            state["oh"], state["oo"] = False, commit
            events.extend(super().feed(state, buf[:cut], pending))
            state["oo"] = False
            pending, buf = (), buf[cut:]
        if pending:
            events.extend(super().feed(state, "", pending))
        return events

    def finish_events(self, state: JSONState) -> list[Event]:
        held = state.get("ob", "")
        events: list[Event] = []
        if held:
            state["ob"], state["oh"] = "", False
            events.extend(super().feed(state, held, ()))
        events.extend(super().finish_events(state))
        return events

    def _terminal(self, state: JSONState, terminal: str, text: str) -> list[Event]:
        if terminal == INVOKE_TERMINAL and state["st"] == S_CONTENT and not state.get("oo"):
            return self._emit(state, text)
        return super()._terminal(state, terminal, text)
