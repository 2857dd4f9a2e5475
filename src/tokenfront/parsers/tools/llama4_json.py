"""llama4_json: the Llama JSON calls of llama3_json read as vLLM's Llama JSON engine tests say.

vLLM 0.33.0 serves llama4_json with the legacy Llama 3 JSON parser (`llama_json.py` here, which
llama3_json keeps: its own tests assert the legacy results). vLLM's
tests/parser/engine/test_llama_json.py, the only tests written for llama4_json's vectors, assert
the engine's reading instead (docs/deviations.md):

* a call is an object with a top-level `"name"` string and a `"parameters"` / `"arguments"` key
  (other keys allowed); prose, and JSON that is not a call, before the first call is content
  (trailing whitespace dropped), text after the calls is dropped;
* calls follow each other with whitespace, `;`, `,`, `<|python_tag|>` or nothing between them;
  the first object after the calls that is no call ends them;
* arguments that do not parse (cut off, a bad escape, `{invalid}`) are cut back to their last
  completable point and closed (`json_repair.closeable`); valid ones are serialized as before;
* `<|python_tag|>` before text without a call is dropped; `<|eot_id|>` / `<|eom_id|>` are ignored.

Streaming sends the content before the first call (whitespace before a call is held back and
dropped) and streams the calls from there as llama3_json does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from tokenfront.parsers.base import (
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCalls,
    JSONState,
    ToolCall,
    random_tool_call_id,
)
from tokenfront.parsers.engines.json_calls import advance_all_partial_calls, dumps, no_calls
from tokenfront.parsers.engines.json_repair import closeable
from tokenfront.parsers.registry import tool_parser
from tokenfront.parsers.tools.llama_json import (
    PYTHON_TAG,
    LlamaJsonToolParser,
    _CallError,
    call_opened,
    drop_idle,
)

SPECIALS = ("<|eot_id|>", "<|eom_id|>")
_ARG_KEYS = ("parameters", "arguments")
_WS = " \t\r\n"


@dataclass
class Envelope:
    end: int  # after the object (len(text) when it never closes)
    complete: bool
    name: str | None
    args: str | None  # raw text of the parameters / arguments value

    @property
    def is_call(self) -> bool:
        return self.name is not None and self.args is not None


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def _string_end(text: str, i: int) -> int:
    """After the string opened at `i` (len(text) if it never closes)."""
    j = i + 1
    while j < len(text):
        if text[j] == "\\":
            j += 2
            continue
        if text[j] == '"':
            return j + 1
        j += 1
    return len(text)


def _value_end(text: str, i: int) -> int:
    """After the JSON value (balanced, string-aware) that starts at `i`."""
    if i >= len(text):
        return i
    c = text[i]
    if c == '"':
        return _string_end(text, i)
    if c in "{[":
        depth = 0
        j = i
        while j < len(text):
            ch = text[j]
            if ch == '"':
                j = _string_end(text, j)
                continue
            if ch in "{[":
                depth += 1
            elif ch in "}]":
                depth -= 1
                if depth == 0:
                    return j + 1
            j += 1
        return len(text)
    j = i
    while j < len(text) and text[j] not in ",}]" + _WS:
        j += 1
    return j


def _decoded(literal: str) -> str | None:
    try:
        value = json.loads(literal)
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def envelope(text: str, i: int) -> Envelope:
    """The object at `i` (`{`): its extent and, read key by key at the top level, the call name
    (a complete string) and the raw arguments value (None without an arguments key)."""
    end = _value_end(text, i)
    complete = end > i + 1 and text[end - 1] == "}"
    name: str | None = None
    args: str | None = None
    j = i + 1
    while True:
        j = _skip_ws(text, j)
        if j >= end or text[j] != '"':
            break
        k = _string_end(text, j)
        key = _decoded(text[j:k]) if k <= end and text[k - 1] == '"' and k > j + 1 else None
        if key is None:
            break
        j = _skip_ws(text, k)
        if j >= end or text[j] != ":":
            if key in _ARG_KEYS and j >= len(text):
                args = ""
            break
        j = _skip_ws(text, j + 1)
        v_end = _value_end(text, j)
        if key == "name":
            literal = text[j:v_end]
            if literal.startswith('"') and len(literal) > 1 and literal.endswith('"'):
                name = _decoded(literal)
        elif key in _ARG_KEYS and args is None:
            args = text[j:v_end]
        j = _skip_ws(text, v_end)
        if j < end and text[j] == ",":
            j += 1
            continue
        break
    return Envelope(end, complete, name, args)


def _arguments(raw: str) -> str:
    try:
        return dumps(json.loads(raw))
    except ValueError:
        return closeable(raw) or "{}"


def _after_separators(text: str, i: int) -> int:
    while i < len(text):
        if text[i] in _WS + ";,":
            i += 1
        elif text.startswith(PYTHON_TAG, i):
            i += len(PYTHON_TAG)
        else:
            break
    return i


def _visible(text: str) -> str:
    return text.replace(PYTHON_TAG, "")


def _strip_specials(text: str) -> str:
    for special in SPECIALS:
        text = text.replace(special, "")
    return text


def scan(text: str) -> tuple[int | None, list[Envelope], bool]:
    """(start of the first call, the calls, whether the first call is decided): objects before
    it that are no call are skipped whole; a cut-off object that may still become a call leaves
    the start undecided (`None`, False)."""
    pos = 0
    calls: list[Envelope] = []
    first: int | None = None
    while True:
        i = text.find("{", pos)
        if i < 0:
            return first, calls, True
        env = envelope(text, i)
        if env.is_call:
            if first is None:
                first = i
            calls.append(env)
            j = _after_separators(text, env.end)
            if j < len(text) and text[j] == "{":
                nxt = envelope(text, j)
                if nxt.is_call:
                    pos = j
                    continue
            return first, calls, True
        if calls:
            return first, calls, True
        if not env.complete:
            return None, [], False
        pos = env.end


@tool_parser("llama4_json")
class Llama4JsonToolParser(LlamaJsonToolParser):
    name = "llama4_json"
    # without a call, the content is the parser's (a leading <|python_tag|> dropped)
    content_without_calls_parsed = True

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        body = _strip_specials(text)
        first, found, _ = scan(body)
        if not found or first is None:
            return no_calls(_visible(text) if body.startswith(PYTHON_TAG) else text)
        calls = [
            ToolCall(name=env.name, arguments=_arguments(env.args or ""), id=random_tool_call_id())
            for env in found
            if env.name is not None
        ]
        prose = _visible(body[:first]).rstrip()
        return ExtractedToolCalls(tools_called=True, tool_calls=calls, content=prose or None)

    def initial_state(self) -> JSONState:
        return {**super().initial_state(), "start": None, "sent": 0}

    def step(
        self,
        state: JSONState,
        previous_text: str,
        current_text: str,
        delta_text: str,
        delta_ids: list[int],
    ) -> DeltaMessage | None:
        body = _strip_specials(current_text)
        start = state["start"]
        content = ""
        if start is None:
            first, _, decided = scan(body)
            opener = _named_opener(body)
            if opener is not None and (first is None or opener <= first):
                # `{"name": …` opens the output: a call from there, its name streamed as soon
                # as it is complete (llama3_json's streaming)
                first = opener
            if first is not None:
                lead = body[:first]
            elif decided:
                lead = body
            else:  # an object that may still become a call: hold from it
                lead = body[: _undecided_at(body)]
            # whitespace may come before a call (then it is dropped): held back
            ready = _visible(lead).rstrip(_WS)
            content = ready[state["sent"] :]
            state["sent"] = max(state["sent"], len(ready))
            if first is None:
                if content or (decided and not delta_text):  # as llama3_json: empty text too
                    return DeltaMessage(content=content)
                return None
            state["start"] = start = first
        cut: list[bool] = []
        try:
            delta = advance_all_partial_calls(
                state, lambda flags: self._parse(body[start:], flags, cut), _CallError,
                empty_args=True,
            )
        except Exception:
            delta = None
        if cut:
            delta = drop_idle(delta)
        if content:
            delta = delta or DeltaMessage()
            delta.content = content
        return delta

    def finish(self, state: JSONState) -> DeltaMessage | None:
        if state.get("start") is None:
            # no call came: the text held back (whitespace, an unfinished object) is content
            rest = _visible(_strip_specials(state.get("text", "")))[state.get("sent", 0) :]
            return DeltaMessage(content=rest) if rest else None
        if not call_opened(state):
            # calls were read from here but none opened (a closed `{"name": …}` without
            # arguments, JSON that never parsed): one-shot's answer
            result = self.extract_tool_calls(state.get("text", ""))
            rest = (result.content or "")[state.get("sent", 0) :]
            calls = [
                call.as_delta(i, call.id or random_tool_call_id())
                for i, call in enumerate(result.tool_calls)
            ]
            return DeltaMessage(content=rest or None, tool_calls=calls) if rest or calls else None
        if state.get("flushed"):
            return None
        rest = self.remaining_args(state)
        if not rest:
            return None
        return DeltaMessage(tool_calls=[DeltaToolCall(index=state["tool"], arguments=rest)])

    def remaining_args(self, state: JSONState) -> str:
        """The last call's arguments not yet streamed, up to one-shot's reading of them (a cut
        or malformed value closed as `extract_tool_calls` closes it) when the streamed text
        is a prefix of that; else vLLM's flush."""
        state["flushed"] = True
        tool = state.get("tool", -1)
        if tool != len(state.get("prev") or []) - 1 or not state.get("name_sent"):
            return ""
        found = self.extract_tool_calls(state.get("text", "")).tool_calls
        streamed = state["streamed"][tool]
        if tool < len(found) and found[tool].arguments.startswith(streamed):
            return found[tool].arguments[len(streamed) :]
        return super().remaining_args(state)

    def skip_separator(self, text: str, pos: int) -> int:
        return _after_separators(text, pos)

    def glued_text_fails(self, text: str, pos: int) -> bool:
        return False  # the engine reads calls back to back

    def recover_call(self, text: str, pos: int) -> tuple[dict[str, Any], int] | None:
        # a closed call whose arguments do not parse (`{invalid}`): closed as one-shot does
        if not text.startswith("{", pos):
            return None
        env = envelope(text, pos)
        if not (env.complete and env.is_call):
            return None
        return {"name": env.name, "arguments": json.loads(_arguments(env.args or ""))}, env.end - pos


def _named_opener(text: str) -> int | None:
    """Where an object whose first key is `"name"` opens the output (after whitespace and a
    `<|python_tag|>`), else None."""
    i = _skip_ws(text, 0)
    if text.startswith(PYTHON_TAG, i):
        i = _skip_ws(text, i + len(PYTHON_TAG))
    if i >= len(text) or text[i] != "{":
        return None
    j = _skip_ws(text, i + 1)
    return i if text.startswith('"name"', j) else None


def _undecided_at(text: str) -> int:
    """Where the object that may still become a call starts (the last top-level `{`)."""
    pos = 0
    while True:
        i = text.find("{", pos)
        if i < 0:
            return len(text)
        env = envelope(text, i)
        if not env.complete:
            return i
        pos = env.end
