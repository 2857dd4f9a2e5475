"""The regex-streamed JSON call lists (xLAM, Hunyuan-A13B): vLLM's per-chunk steps and
their end-of-stream completion.

vLLM streams these lists with regular expressions over the text so far, one step per chunk:
a call's name once it is complete, then `{`, then the rest of its arguments once the object
closes (objects nested at most two levels deep). Its served stream then appends the last parsed
call's whole arguments again (these parsers never record what they streamed), and a chunk
holding several steps (a large chunk, or the whole output) loses the later ones.

vLLM's parser tests (tests/tool_parsers/test_xlam_tool_parser.py, test_hunyuan_a13b_tool_parser.py)
assert every call whole and once, so tokenfront keeps vLLM's per-chunk steps and, at the end of
the stream, completes what they left out (docs/deviations.md): calls whose name was never sent
(id, name and arguments), and argument text not yet sent. The streaming state keeps, per call,
`[name sent, "{" sent, argument text sent]` (`state["sent"]`).

vLLM's regular expressions find `"name": "…"` anywhere, so a `"name"` key inside a call's
arguments (`{"name": "register_user", "arguments": {"name": "John Doe", …}}`) became a call of
its own; tokenfront reads only the calls' own keys (`call_key_starts`): the keys of the objects
directly inside the list (or of a lone top-level object), as one-shot parsing does
(test_hunyuan_a13b_tool_parser.py::test_hunyuan_a13b_tool_parser_extract[2]).
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Callable
from typing import Any

from tokenfront.parsers.base import DeltaMessage, DeltaToolCall, JSONState, ToolCall
from tokenfront.parsers.engines.json_calls import (
    JsonToolParser,
    args_delta,
    dumps,
    name_delta,
    snapshot_args_delta,
)

_NAME_RE = re.compile(r'"name"\s*:\s*"([^"]+)"')
_EMPTY_ARGS_RE = re.compile(r'"name"\s*:\s*"[^"]+"\s*,\s*"arguments"\s*:\s*\{\s*\}')
_ARGS_RE = re.compile(
    r'"name"\s*:\s*"[^"]+"\s*,\s*"arguments"\s*:\s*(\{(?:[^{}]|(?:\{[^{}]*\}))*\})'
)
_ARGS_KEY_RE = re.compile(r'\s*,\s*"arguments"\s*:\s*')
_DECODER = json.JSONDecoder()
# A JSON string (possibly unterminated) or one bracket: the structure call_key_starts walks.
_STRUCTURE_RE = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*\\?"?|[\[\]{}]')


def call_key_starts(text: str, start: int = 0) -> set[int]:
    """Offsets of the strings (from `start` on) that sit directly in a call object: an object
    directly inside the outermost array, or the outermost object itself."""
    out: set[int] = set()
    stack: list[str] = []
    for token in _STRUCTURE_RE.finditer(text, start):  # strings are skipped whole, in C
        ch = text[token.start()]
        if ch == '"':
            if stack in (["[", "{"], ["{"]):
                out.add(token.start())
        elif ch in "[{":
            stack.append(ch)
        elif stack:
            stack.pop()
    return out


def call_matches(pattern: re.Pattern[str], text: str, start: int = 0) -> list[re.Match[str]]:
    """Matches of `pattern` (which starts at a `"name"` key) at the calls' own keys only."""
    keys = call_key_starts(text, start)
    return [m for m in pattern.finditer(text, start) if m.start() in keys]


def call_list_spans(text: str, start: int = 0) -> list[tuple[str, str | None]]:
    """(name, arguments source text) per `"name": "…", "arguments": …` of a call in `text`
    (from `start` on); the arguments are None until their JSON value is complete."""
    out: list[tuple[str, str | None]] = []
    for match in call_matches(_NAME_RE, text, start):
        key = _ARGS_KEY_RE.match(text, match.end())
        args: str | None = None
        if key is not None:
            try:
                _, end = _DECODER.raw_decode(text, key.end())
                args = text[key.end() : end]
            except json.JSONDecodeError:
                args = None
        out.append((match.group(1), args))
    return out


def _forms(args: str) -> list[str]:
    """The argument text as written and as re-serialised (vLLM streams either)."""
    forms = [args]
    try:
        value = json.loads(args)
    except json.JSONDecodeError:
        return forms
    if isinstance(value, dict):
        forms.append(dumps(value))
    return forms


def complete_calls(
    state: JSONState, text: str, new_id: Callable[[int], str], start: int = 0
) -> DeltaMessage | None:
    """The deltas a stream of `text` (calls from `start` on) still owes at its end (see the
    module docstring)."""
    sent: list[list[Any]] = state.get("sent") or []
    if not any(entry[0] for entry in sent):
        return None  # not a tool-call stream
    out: list[DeltaToolCall] = []
    for index, (name, args) in enumerate(call_list_spans(text, start)):
        while len(sent) <= index:
            sent.append([False, False, ""])
        entry = sent[index]
        if not entry[0]:
            if args is None:
                continue
            entry[0], entry[1], entry[2] = True, True, _forms(args)[-1]
            out.append(
                DeltaToolCall(
                    index=index, id=new_id(index), type="function", name=name, arguments=entry[2]
                )
            )
            continue
        if args is None:
            continue
        for form in _forms(args):
            if form.startswith(entry[2]) and form != entry[2]:
                out.append(DeltaToolCall(index=index, arguments=form[len(entry[2]) :]))
                entry[1], entry[2] = True, form
                break
    state["sent"] = sent
    return DeltaMessage(tool_calls=out) if out else None


def call_id(index: int) -> str:
    return f"call_{index}_{secrets.token_hex(8)}"


def list_tool_calls(data: list[Any], new_id: Callable[[int], str]) -> list[ToolCall]:
    """One-shot's calls from a parsed list: entries without a name and arguments are skipped;
    a name that is no string, or arguments neither object nor string, raise TypeError."""
    calls: list[ToolCall] = []
    for index, call in enumerate(data):
        if not isinstance(call, dict) or "name" not in call or "arguments" not in call:
            continue
        name, args = call["name"], call["arguments"]
        if not isinstance(name, str):
            raise TypeError(name)
        if isinstance(args, dict):
            args = dumps(args)
        elif not isinstance(args, str):
            raise TypeError(args)
        calls.append(ToolCall(name=name, arguments=args, id=new_id(index)))
    return calls


class CallListParser(JsonToolParser):
    """A call list streamed as vLLM streams it (see the module docstring); `finish` completes it."""

    finish_joins_last_call = True

    def initial_state(self) -> JSONState:
        state = super().initial_state()
        state["cur"] = -1
        state["sent"] = []  # per call: [name sent, "{" sent, arguments sent]
        state["shown"] = 0  # text before this offset was sent as content
        state["call_at"] = None  # where the calls start, once the text reads as calls
        return state

    def remaining_args(self, state: JSONState) -> str:
        # vLLM appends the last call's whole arguments again here; `finish` completes instead.
        return ""

    def finish(self, state: JSONState) -> DeltaMessage | None:
        """What vLLM's steps left out, sent at the end."""
        text: str = state.get("text", "")
        call_at = state.get("call_at")
        if call_at is None:  # not a tool-call stream: release what was held back
            held = text[state.get("shown", len(text)) :]
            return DeltaMessage(content=held) if held else None
        return self.complete(state, text, call_at)

    def complete(self, state: JSONState, text: str, call_at: int) -> DeltaMessage | None:
        return complete_calls(state, text, call_id, call_at)

    def call_args(self, text: str, match: re.Match[str], cur: int, count: int) -> str:
        """The argument text of call `cur` (of `count`) whose arguments `match` found."""
        return match.group(1)

    def call_step(self, state: JSONState, text: str, start: int) -> DeltaMessage | None:
        """One chunk's step over the calls in `text` from `start`: the next name, an empty
        `{}`, or the current call's arguments snapshot."""
        names = call_matches(_NAME_RE, text, start)
        count = len(names)
        if count == 0:
            return None
        sent: list[list[Any]] = state["sent"]
        while len(sent) < count:
            sent.append([False, False, ""])
        cur = state["cur"]
        if cur == -1 or cur < count - 1:
            nxt = cur + 1
            if nxt < count and not sent[nxt][0]:
                state["cur"] = nxt
                sent[nxt][0] = True
                return name_delta(nxt, call_id(nxt), names[nxt].group(1))
        if not 0 <= cur < count:
            return None
        # Only the current call's own empty arguments (vLLM: any call's, which sends "{}" for
        # the current call; the *_streaming_one_empty_args_tool tests).
        empty = _EMPTY_ARGS_RE.match(text, names[cur].start())
        if empty and empty.start() > 0 and not sent[cur][1]:
            sent[cur][1] = True
            sent[cur][2] = "{}"
            if cur < count - 1:
                state["cur"] = cur + 1
            return args_delta(cur, "{}")
        matches = call_matches(_ARGS_RE, text, start)
        if cur >= len(matches):
            return None
        args_text = self.call_args(text, matches[cur], cur, count)
        return snapshot_args_delta(state, sent, cur, count, args_text)
