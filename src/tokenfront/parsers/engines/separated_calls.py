"""Separator-based tool-call formats: begin/end markers around `name <sep> arguments`.

Two families live here:

* `MarkerRegexToolParser` (DeepSeek V3 / V3.1): a section marker opens the calls, each
  call is `<call begin> HEADER <sep> BODY <call end>`; one-shot extraction is a regex over
  the calls, streaming counts the call markers by token id and diffs the argument text.
* `SectionToolParser` (Kimi K2): a small state machine over marker terminals; the call
  header carries the call id (`functions.NAME:IDX`), the arguments are raw JSON streamed
  with the top-level closing brace held back until the call ends.

Specs in `parsers/tools/` give the markers and regexes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, ClassVar

from tokenfront.parsers.base import (
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCalls,
    JSONState,
    ParseContext,
    ToolCall,
    ToolParser,
)

# ---------------------------------------------------------------------------
# DeepSeek-style: regex one-shot, token-count streaming
# ---------------------------------------------------------------------------


class MarkerRegexToolParser(ToolParser):
    """Spec fields: markers, the one-shot regex, and the two streaming regexes.

    `call_regex` groups: `name`, `arguments` and optionally `type` (a call whose type is
    not "function" makes the whole output plain content). `portion_regex` matches a
    call's text seen so far once arguments started; `name_regex` once only the name is
    known (both `.match` at the start, groups `name` / `arguments`).
    """

    calls_begin: ClassVar[str] = "<｜tool▁calls▁begin｜>"
    calls_end: ClassVar[str] = "<｜tool▁calls▁end｜>"
    call_begin: ClassVar[str] = "<｜tool▁call▁begin｜>"
    call_end: ClassVar[str] = "<｜tool▁call▁end｜>"
    call_regex: ClassVar[re.Pattern[str]]
    portion_regex: ClassVar[re.Pattern[str]]
    name_regex: ClassVar[re.Pattern[str]]
    # Whether text after the calls-end marker is kept as content (V3) or dropped (V3.1).
    content_after_calls: ClassVar[bool] = True
    model_label: ClassVar[str] = "DeepSeek-V3"

    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        super().__init__(tokenizer, ctx)
        self.calls_begin_id = self.vocab_id(self.calls_begin)
        self.calls_end_id = self.vocab_id(self.calls_end)
        self.call_begin_id = self.vocab_id(self.call_begin)
        self.call_end_id = self.vocab_id(self.call_end)
        if self.calls_begin_id is None or self.calls_end_id is None:
            raise RuntimeError(
                f"{self.model_label} Tool parser could not locate tool call start/end "
                "tokens in the tokenizer!"
            )

    # -- one-shot ---------------------------------------------------------------

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        start = text.find(self.calls_begin)
        if start == -1:
            return ExtractedToolCalls(False, [], text)
        calls: list[ToolCall] = []
        for match in self.call_regex.finditer(text):
            groups = match.groupdict()
            if groups.get("type", "function") != "function":
                return ExtractedToolCalls(False, [], text)
            calls.append(ToolCall(name=groups["name"], arguments=groups["arguments"]))
        content = text[:start]
        if self.content_after_calls:
            end = text.rfind(self.calls_end)
            if end != -1:
                content += text[end + len(self.calls_end) :]
        return ExtractedToolCalls(True, calls, content or None)

    # -- streaming --------------------------------------------------------------

    def initial_state(self) -> JSONState:
        # text: tool-phase text so far; begun: calls-begin id seen; starts/ends: call
        # marker id counts so far; cur: current call index; named: its name was sent;
        # prev: last parsed {name, arguments} per call; sent: argument text emitted.
        return {
            "text": "",
            "begun": False,
            "starts": 0,
            "ends": 0,
            "cur": -1,
            "named": False,
            "prev": [],
            "sent": [],
            "last_tool": None,
        }

    def finish(self, state: JSONState) -> DeltaMessage | None:
        """vLLM appends the unstreamed tail of the last call's arguments to a final tool delta."""
        index = state.get("last_tool")
        prev: list[dict[str, Any]] = state.get("prev") or []
        if index is None or not prev:
            return None
        last = len(prev) - 1
        expected = prev[last].get("arguments", {})
        if not isinstance(expected, str):
            expected = json.dumps(expected, ensure_ascii=False)
        sent = state["sent"][last] if last < len(state["sent"]) else ""
        tail = expected[len(sent) :] if expected.startswith(sent) else ""
        if not tail:
            return None
        return DeltaMessage(tool_calls=[DeltaToolCall(index=index, arguments=tail)])

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> DeltaMessage | None:
        if "text" not in state:
            state.update(self.initial_state())
        result = self._stream(state, delta_text, delta_ids)
        state["last_tool"] = result.tool_calls[-1].index if result and result.tool_calls else None
        return result

    def _stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> DeltaMessage | None:
        current_text = state["text"] + delta_text
        state["text"] = current_text
        prev_starts, prev_ends = state["starts"], state["ends"]
        cur_starts = prev_starts + sum(1 for i in delta_ids if i == self.call_begin_id)
        cur_ends = prev_ends + sum(1 for i in delta_ids if i == self.call_end_id)
        state["starts"], state["ends"] = cur_starts, cur_ends
        if not state["begun"] and self.calls_begin_id in delta_ids:
            state["begun"] = True
        if not state["begun"]:
            return DeltaMessage(content=delta_text)

        delta_text = delta_text.replace(self.calls_begin, "").replace(self.calls_end, "")
        try:
            return self._stream_calls(
                state,
                current_text,
                delta_text,
                len(delta_ids),
                (prev_starts, prev_ends, cur_starts, cur_ends),
            )
        except Exception:
            return None

    def _stream_calls(
        self,
        state: JSONState,
        current_text: str,
        delta_text: str,
        n_ids: int,
        counts: tuple[int, int, int, int],
    ) -> DeltaMessage | None:
        prev_starts, prev_ends, cur_starts, cur_ends = counts
        portion: str | None = None
        text_portion: str | None = None

        if cur_starts == cur_ends and prev_ends == cur_ends and self.call_end not in delta_text:
            return DeltaMessage(content=delta_text)

        if self.call_end in delta_text:
            whole = current_text + delta_text
            portion = whole.split(self.call_begin)[-1].split(self.call_end)[0].rstrip()
            delta_text = delta_text.split(self.call_end)[0].rstrip()
            text_portion = delta_text.split(self.call_end)[-1].lstrip()

        if cur_starts > cur_ends and cur_starts > prev_starts:
            portion = current_text.split(self.call_begin)[-1] if n_ids > 1 else None
            text_portion = None
            state["cur"] += 1
            state["named"] = False
            state["sent"].append("")
        elif cur_starts > cur_ends and cur_starts == prev_starts:
            portion = current_text.split(self.call_begin)[-1]
            text_portion = None
        elif cur_starts == cur_ends and cur_ends >= prev_ends:
            if not state["prev"]:
                return None
            cur = state["cur"]
            if state["prev"][cur].get("arguments"):
                if '"}' not in delta_text:
                    return None
                tail = delta_text[: delta_text.rindex('"}')] + '"}'
                state["sent"][cur] += tail
                return DeltaMessage(tool_calls=[DeltaToolCall(index=cur, arguments=tail)])
        else:
            text = delta_text.replace(self.call_begin, "").replace(self.call_end, "")
            return DeltaMessage(content=text)

        call: dict[str, Any] = {}
        if portion:
            match = self.portion_regex.match(portion)
            if match:
                call = {"name": match.group("name"), "arguments": match.group("arguments")}
            else:
                name_match = self.name_regex.match(portion)
                if not name_match:
                    return None
                call = {"name": name_match.group("name"), "arguments": ""}

        cur = state["cur"]
        if not state["named"]:
            name = call.get("name")
            if not name:
                return None
            state["named"] = True
            return DeltaMessage(
                tool_calls=[
                    DeltaToolCall(
                        index=cur, id=self.new_tool_call_id(name), type="function", name=name
                    )
                ]
            )

        if portion is None:
            return DeltaMessage(content=delta_text) if text_portion is not None else None

        prev_calls: list[dict[str, Any]] = state["prev"]
        if len(prev_calls) <= cur:
            prev_calls.append({})
        before = prev_calls[cur].get("arguments")
        now = call.get("arguments")
        delta: DeltaMessage | None = None
        if now and not before:
            delta = DeltaMessage(tool_calls=[DeltaToolCall(index=cur, arguments=now)])
            state["sent"][cur] = now
        elif now and before and len(now) > len(before) and now.startswith(before):
            delta = DeltaMessage(
                tool_calls=[DeltaToolCall(index=cur, arguments=now[len(before) :])]
            )
            state["sent"][cur] = now
        if cur == len(prev_calls) - 1:
            prev_calls[cur] = call
        else:
            prev_calls.append(call)
        return delta
