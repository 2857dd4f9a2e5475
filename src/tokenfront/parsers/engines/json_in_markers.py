"""Tool calls as one JSON object `{"name": ..., "arguments": {...}}` between marker strings.

The grammar of hermes-style parsers: `<tool_call>{json}</tool_call>` repeated, a missing end
marker allowed on the last call. One-shot parsing needs every call to parse, else the whole
output stays content. Streaming follows vLLM's hermes parser: content up to the first start
marker (holding back a partial marker), then per call the name once complete and the
arguments text as it grows. The stream state keeps only the unfinished calls' text.
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
    ToolCall,
    ToolParser,
    random_tool_call_id,
)

_NAME_RE = re.compile(r'"name"\s*:\s*"([^"]+)"')
_ARGS_RE = re.compile(r'"arguments"\s*:\s*')
# `json.dumps(value, ensure_ascii=False)` without building an encoder per call.
_dumps = json.JSONEncoder(ensure_ascii=False).encode


def _outside_strings(text: str, start: int, marker: str) -> int:
    """The first `marker` in `text[start:]` that is not inside a JSON string literal, or -1."""
    in_string = escaped = False
    at = start
    while True:
        nxt = text.find(marker, at)
        if nxt == -1:
            return -1
        for ch in text[at:nxt]:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = in_string
            elif ch == '"':
                in_string = not in_string
        if not in_string:
            return nxt
        escaped = False  # the marker (no backslash in it) is string text
        at = nxt + len(marker)


def call_close(text: str, body_at: int, end: str) -> tuple[int, bool]:
    """Where the call whose body starts at `body_at` ends: (index of its `end` marker or -1,
    whether its only marker so far lies inside a JSON string, so more text may move it).

    The first marker closes the call, as in vLLM 0.33.0, unless it lies inside a JSON string
    and a later marker outside the strings closes a body that parses (vLLM's hermes tests,
    issue #45167: `"content": "… </tool_call> …"` is argument text).
    """
    first = text.find(end, body_at)
    if first == -1 or is_complete_json(text[body_at:first].strip()):
        return first, False
    outside = _outside_strings(text, body_at, end)
    if outside == first:
        return first, False
    if outside != -1 and is_complete_json(text[body_at:outside].strip()):
        return outside, False
    # inside a string and nothing after it yet: a stream waits for more
    return first, text.find(end, first + len(end)) == -1


def partial_tag_overlap(text: str, tag: str) -> int:
    """Length of the longest proper prefix of `tag` that ends `text`."""
    for k in range(min(len(tag) - 1, len(text)), 0, -1):
        if text.endswith(tag[:k]):
            return k
    return 0


def serialized_arguments(value: str) -> str:
    """A string-valued `arguments` as the arguments text (vLLM's parser tests).

    A string holding a serialized JSON object is the arguments already: passed through, not
    encoded twice. Any other string is serialized as a JSON string, so it stays valid JSON.
    """
    try:
        decoded = json.loads(value)
    except ValueError:
        decoded = None
    if isinstance(decoded, dict):
        return value
    return _dumps(value)


def arguments_text(value: Any) -> str:
    """The `arguments` value of a parsed call as the arguments text."""
    if isinstance(value, str):
        return serialized_arguments(value)
    return _dumps(value)


_STRING_SENT = -2  # a call's args length once its string-valued arguments were sent


def _string_literal(args: str) -> str | None:
    """The JSON string literal that starts `args`, once it is complete."""
    try:
        value, _ = json.JSONDecoder().raw_decode(args.lstrip())
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def is_complete_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


class JsonInMarkersToolParser(ToolParser):
    """Set `start_marker` / `end_marker` in the subclass."""

    start_marker: ClassVar[str] = "<tool_call>"
    end_marker: ClassVar[str] = "</tool_call>"
    # String-valued `arguments` follow `serialized_arguments` (vLLM's hermes tests) instead
    # of being serialized again (vLLM 0.33.0); streamed once the string literal closes.
    serialized_string_arguments: ClassVar[bool] = False

    # ---- one-shot -------------------------------------------------------------------------
    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        start, end = self.start_marker, self.end_marker
        if start not in text:
            return ExtractedToolCalls(False, [], text)
        try:
            calls = []
            at = text.find(start)
            while at != -1:
                body_at = at + len(start)
                close = text.find(end, body_at)
                body = text[body_at:] if close == -1 else text[body_at:close]
                try:  # the first marker closes a body that parses: `call_close`'s answer too
                    obj: Any = json.loads(body)
                except ValueError:
                    close, _ = call_close(text, body_at, end)
                    body = text[body_at:] if close == -1 else text[body_at:close]
                    obj = json.loads(body)
                at = -1 if close == -1 else text.find(start, close + len(end))
                if not isinstance(obj["name"], str):  # vLLM's FunctionCall rejects it
                    raise TypeError("tool name must be a string")
                calls.append(
                    ToolCall(
                        name=obj["name"],
                        arguments=(
                            arguments_text(obj["arguments"])
                            if self.serialized_string_arguments
                            else _dumps(obj["arguments"])
                        ),
                    )
                )
        except Exception:
            return ExtractedToolCalls(False, [], text)
        content = text[: text.find(start)]
        return ExtractedToolCalls(True, calls, content or None)

    # ---- streaming ------------------------------------------------------------------------
    def initial_state(self) -> JSONState:
        # tail: unsent text that may start a marker; buf: text from the first unfinished
        # call's start marker; idx: index of that call; tools: per call [name_sent, args_len]
        return {"started": False, "tail": "", "buf": "", "idx": 0, "tools": [], "stuck": False}

    def _split_region(self, buf: str, final: bool = False) -> tuple[str, bool, int]:
        """The first call in `buf` (which starts with a start marker): json, complete, end.
        `final`: the output has ended, so a marker inside an open string closes the call
        after all (no later marker came to settle it: vLLM 0.33.0's reading)."""
        body_at = len(self.start_marker)
        close, quoted = call_close(buf, body_at, self.end_marker)
        if close != -1 and (not quoted or final):
            return buf[body_at:close].strip(), True, close + len(self.end_marker)
        if close != -1:  # a marker inside an open string: held until later text settles it
            raw = buf[body_at:close].rstrip()
            if raw.endswith("}"):  # the call's own closer should the marker close it after all
                raw = raw[:-1]
        else:
            raw = buf[body_at:]
            overlap = partial_tag_overlap(raw, self.end_marker)
            if overlap:
                raw = raw[:-overlap]
        tc_json = raw.strip()
        return tc_json, (is_complete_json(tc_json) if tc_json else False), -1

    @staticmethod
    def _args_text(tc_json: str, complete: bool) -> str | None:
        match = _ARGS_RE.search(tc_json)
        if not match:
            return None
        raw = tc_json[match.end() :]
        if complete:
            raw = raw.rstrip()
            if raw.endswith("}"):
                raw = raw[:-1].rstrip()
        return raw

    def _calls(self, state: JSONState, final: bool = False) -> list[DeltaToolCall]:
        deltas: list[DeltaToolCall] = []
        buf: str = state["buf"]
        while not state["stuck"]:
            at = buf.find(self.start_marker)
            if at == -1:
                keep = partial_tag_overlap(buf, self.start_marker)
                buf = buf[len(buf) - keep :] if keep else ""
                break
            buf = buf[at:]
            tc_json, complete, end = self._split_region(buf, final)
            index = state["idx"]
            tools: list[list[Any]] = state["tools"]
            if index >= len(tools):
                tools.append([False, -1])
            entry = tools[index]
            if not entry[0]:
                match = _NAME_RE.search(tc_json)
                if not match:
                    if end != -1:
                        state["stuck"] = True  # a closed call without a name blocks the rest
                    break
                entry[0] = True
                deltas.append(
                    DeltaToolCall(
                        index=index, id=random_tool_call_id(), type="function", name=match[1]
                    )
                )
            args = self._args_text(tc_json, complete)
            if self.serialized_string_arguments and args and args.lstrip().startswith('"'):
                if entry[1] != _STRING_SENT:
                    value = _string_literal(args)
                    if value is not None:
                        text = serialized_arguments(value)
                        deltas.append(DeltaToolCall(index=index, arguments=text))
                        entry[1] = _STRING_SENT
            elif args is not None and len(args) > max(entry[1], 0):
                deltas.append(DeltaToolCall(index=index, arguments=args[max(entry[1], 0) :]))
                entry[1] = len(args)
            if end == -1:
                break
            buf = buf[end:]
            state["idx"] = index + 1
        state["buf"] = buf if not state["stuck"] else ""
        return deltas

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> DeltaMessage | None:
        content: str | None = None
        if not state["started"]:
            text = state["tail"] + delta_text
            at = text.find(self.start_marker)
            if at == -1:
                keep = partial_tag_overlap(text, self.start_marker)
                content = text[: len(text) - keep]
                state["tail"] = text[len(text) - keep :]
            else:
                content = text[:at]
                state["tail"] = ""
                state["started"] = True
                state["buf"] = text[at:]
        else:
            state["buf"] += delta_text
        deltas = self._calls(state) if state["started"] else []
        if content or deltas:
            return DeltaMessage(content=content or None, tool_calls=deltas)
        return None

    def finish(self, state: JSONState) -> DeltaMessage | None:
        """The output ended: a call held at a marker inside an open string closes there, and
        the calls after it are read (they were waiting behind the held one)."""
        if not state["started"] or state["stuck"] or not state["buf"]:
            return None
        deltas = self._calls(state, final=True)
        return DeltaMessage(tool_calls=deltas) if deltas else None

    def remaining_args(self, state: JSONState) -> str:
        tools = state.get("tools") or []
        if not tools:
            return ""
        # vLLM compares the last call's parsed arguments (`{}` until any were seen) with
        # what was streamed; for this grammar they differ only before the first arguments.
        return "{}" if tools[-1][1] == -1 else ""
