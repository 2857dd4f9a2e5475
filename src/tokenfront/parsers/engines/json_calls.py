"""Engine for JSON-style tool calls: JSON objects (or an array of them) after or between markers.

The model formats built on it (llama3/4 JSON, phi-4-mini, xLAM, InternLM, Jamba, Hunyuan-A13B,
ERNIE 4.5, Granite 4) differ only in where the JSON sits and in a few quirks of how vLLM streams
the arguments. This module holds what they share:

* JSON helpers with vLLM's exact semantics: `partial_loads` (partial-JSON parsing that stops at
  extra data), `dumps` (`ensure_ascii=False`, the serialisation every parser re-emits arguments
  with), `common_prefix`, `intermediate_diff`;
* `JsonToolParser`, a `ToolParser` whose streaming state is a plain dict. It keeps the text and
  token bookkeeping vLLM hands its tool parsers (`previous_text`, `current_text`, previous token
  ids) and the per-call progress lists (`prev` parsed calls, `streamed` argument text) that the
  end-of-stream flush (`remaining_args`) reads.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import partial_json_parser
from partial_json_parser.core.exceptions import MalformedJSON
from partial_json_parser.core.options import Allow

from tokenfront.parsers.base import (
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCalls,
    JSONState,
    ToolParser,
    append_delta,
    random_tool_call_id,
)
from tokenfront.tokenization.vocab import vocab_of

ALLOW_ALL = Allow.ALL
# While a call's name is not yet sent, partial strings are not completed: a name is sent whole.
ALLOW_NO_PARTIAL_STR = Allow.ALL & ~Allow.STR

__all__ = [
    "ALLOW_ALL",
    "ALLOW_NO_PARTIAL_STR",
    "MalformedJSON",
    "JsonToolParser",
    "SuffixLoads",
    "args_delta",
    "cached_vocab",
    "common_prefix",
    "dumps",
    "intermediate_diff",
    "is_complete_json",
    "no_calls",
    "partial_loads",
]


cached_vocab = vocab_of


def dumps(value: Any) -> str:
    """Arguments re-serialised the way vLLM does (`json.dumps(..., ensure_ascii=False)`)."""
    return json.dumps(value, ensure_ascii=False)


def partial_loads(text: str, flags: Allow) -> tuple[Any, int]:
    """Parse a possibly unfinished JSON value; with trailing data, the first complete value.

    Returns the value and how many characters it used. Raises `MalformedJSON` when the text
    cannot start a JSON value and `json.JSONDecodeError` for other syntax errors.
    """
    try:
        return partial_json_parser.loads(text, flags), len(text)
    except json.JSONDecodeError as exc:
        if "Extra data" in exc.msg:
            return json.JSONDecoder().raw_decode(text)
        raise


# What partial_json_parser's bracket scan reads; the whitespace `json.loads` may end on.
_SCANNED = re.compile(r'["\[\]{}]')
_JSON_WS = re.compile(r"[ \t\n\r]*\Z")
_JSON_WS_CHARS = (" ", "\t", "\n", "\r")
_OPENER = {"}": "{", "]": "["}
_DECODER = json.JSONDecoder()
Parsed = tuple[Any, int]


class SuffixLoads:
    """`partial_loads(text[pos:], flags)` for many `pos` of one text, in linear total time.

    `partial_loads` reads the whole rest of its text: partial_json_parser's bracket scan runs
    to the end and may raise there (a stray `}`, an unfinishable tail), so parsing k calls
    one after the other costs k times the text. Here the value at `pos` is decoded alone and
    what the scan of the text after it raises is found once per text: a container the scan
    closes leaves it as it was, so the first other scanned character and what follows it
    decide (read by `partial_loads` on `{}` + that tail).
    """

    def __init__(self, text: str, flags: Allow) -> None:
        self.text = text
        self.flags = flags
        # the scan below relies on the partial parser never refusing an open container
        self.fast = flags & Allow.COLLECTION == Allow.COLLECTION
        self.tail_errors: dict[int, Exception | None] = {}
        self.decoded: dict[int, Parsed] = {}  # complete containers the tail walk passed
        self.scan_ends: dict[int, int | None] = {}

    def __call__(self, pos: int) -> Parsed:
        if not self.fast:
            return partial_loads(self.text[pos:], self.flags)
        if self.text.startswith(("{", "["), pos):
            return self._container(pos)
        return self._not_container(pos)

    def _container(self, pos: int) -> Parsed:
        text = self.text
        try:
            value, end = self._decode(pos)
        except RecursionError:
            return partial_loads(text[pos:], self.flags)
        except json.JSONDecodeError:
            # closed by the scan but no JSON: json.loads fails inside it, after the scan
            closed = self._scan_end(pos)
            if closed is None:
                return partial_loads(text[pos:], self.flags)
            self._raise_tail_error(closed)
            raise
        if _JSON_WS.match(text, end):
            return value, len(text) - pos
        self._raise_tail_error(end)
        return value, end - pos

    def _not_container(self, pos: int) -> Parsed:
        """A number, literal or junk before the first scanned character: when that is a
        bracket, the scan runs from there as after a container and the value is whatever
        `json.loads` reads first (not the container: the text does not start with
        whitespace)."""
        text = self.text
        scanned = _SCANNED.search(text, pos)
        if text.startswith(_JSON_WS_CHARS, pos) or scanned is None or scanned.group() == '"':
            return partial_loads(text[pos:], self.flags)
        self._raise_tail_error(pos)
        try:
            value, end = _DECODER.raw_decode(text, pos)
        except RecursionError:
            return partial_loads(text[pos:], self.flags)
        return value, end - pos

    def _decode(self, pos: int) -> Parsed:
        if pos in self.decoded:
            return self.decoded.pop(pos)
        return _DECODER.raw_decode(self.text, pos)

    def _raise_tail_error(self, start: int) -> None:
        error = self._tail_error(start)
        if error is not None:
            raise error.with_traceback(None)

    def _tail_error(self, start: int) -> Exception | None:
        """What the scan of `text[start:]`, begun outside any string or container, raises
        in `partial_loads` (None: nothing)."""
        walked: list[int] = []
        pos = start
        error: Exception | None = None
        while pos not in self.tail_errors:
            walked.append(pos)
            scanned = _SCANNED.search(self.text, pos)
            after = None if scanned is None else self._passed(scanned.start())
            if after is None:
                if scanned is not None:
                    error = _tail_error(self.text[scanned.start() :], self.flags)
                break
            pos = after
        else:
            error = self.tail_errors[pos]
        for seen in walked:
            self.tail_errors[seen] = error
        return error

    def _passed(self, pos: int) -> int | None:
        """Where the scan leaves the container at `pos`, closed (None: no such container)."""
        if not self.text.startswith(("{", "["), pos):
            return None
        try:
            self.decoded[pos] = _DECODER.raw_decode(self.text, pos)
        except (json.JSONDecodeError, RecursionError):
            return self._scan_end(pos)
        return self.decoded[pos][1]

    def _scan_end(self, pos: int) -> int | None:
        """Where partial_json_parser's scan closes the bracket at `pos` (None: it fails or
        the text ends first)."""
        if pos not in self.scan_ends:
            self.scan_ends[pos] = _scan_end(self.text, pos)
        return self.scan_ends[pos]


def _scan_end(text: str, pos: int) -> int | None:
    stack: list[str] = []
    in_string = False
    for scanned in _SCANNED.finditer(text, pos):
        char = scanned.group()
        if char == '"':
            in_string = not in_string or _escaped(text, scanned.start())
        elif in_string:
            continue
        elif char in "{[":
            stack.append(char)
        elif not stack or stack.pop() != _OPENER[char]:
            return None
        if not stack:
            return scanned.end()
    return None


def _escaped(text: str, pos: int) -> bool:
    """Whether an odd run of backslashes comes before `pos`."""
    start = pos
    while start and text[start - 1] == "\\":
        start -= 1
    return (pos - start) % 2 == 1


def _tail_error(tail: str, flags: Allow) -> Exception | None:
    try:
        partial_loads("{}" + tail, flags)
    except Exception as exc:  # whichever error partial_json_parser's scan or fix raises
        return exc
    return None


def is_complete_json(text: str) -> bool:
    try:
        json.loads(text)
    except json.JSONDecodeError:
        return False
    return True


def common_prefix(a: str, b: str) -> str:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return a[:n]


def _common_suffix_non_alnum(a: str, b: str) -> str:
    """The shared tail of two strings, stopping at the first alphanumeric character."""
    n = 0
    for i in range(1, min(len(a), len(b)) + 1):
        if a[-i] == b[-i] and not a[-i].isalnum():
            n = i
        else:
            break
    return a[len(a) - n :] if n else ""


def intermediate_diff(cur: str, old: str) -> str:
    """What `cur` adds in the middle of `old` (shared prefix and closing suffix removed)."""
    suffix = _common_suffix_non_alnum(cur, old)
    if suffix:
        old = _remove_last(old, suffix)
    prefix = common_prefix(cur, old)
    diff = cur
    if suffix:
        diff = _remove_last(diff, suffix)
    if prefix:
        diff = diff.replace(prefix, "", 1)
    return diff


def _remove_last(text: str, part: str) -> str:
    pos = text.rfind(part)
    return text if pos < 0 else text[:pos] + text[pos + len(part) :]


def no_calls(content: str | None) -> ExtractedToolCalls:
    return ExtractedToolCalls(tools_called=False, tool_calls=[], content=content)


def args_delta(index: int, arguments: str) -> DeltaMessage:
    """A delta that only extends one call's arguments."""
    return DeltaMessage(tool_calls=[DeltaToolCall(index=index, arguments=arguments)])


def snapshot_args_delta(
    state: JSONState, sent: list[list[Any]], cur: int, count: int, args_text: str
) -> DeltaMessage | None:
    """Stream call `cur`'s arguments from snapshots of their text, as vLLM's JSON-list parsers
    do: "{" first, then whatever the snapshot grew by (`sent[cur]`: name sent, arguments
    started, arguments sent); a finished call that is not the last moves `state["cur"]` on."""
    already = sent[cur][2]
    if not sent[cur][1] and args_text.startswith("{"):
        sent[cur][1] = True
        sent[cur][2] = "{"
        return args_delta(cur, "{")
    if args_text.startswith(already):
        diff = args_text[len(already) :]
        if diff:
            sent[cur][2] = args_text
            return args_delta(cur, diff)
    if args_text.endswith("}") and args_text == already and cur < count - 1:
        state["cur"] = cur + 1
    return None


def name_delta(index: int, call_id: str, name: str) -> DeltaMessage:
    """A delta that opens a call: its id, type and whole name."""
    return DeltaMessage(
        tool_calls=[DeltaToolCall(index=index, id=call_id, type="function", name=name)]
    )


def advance_partial_calls(
    state: dict[str, Any],
    calls: list[Any],
    complete: list[bool],
    bad_name: type[Exception],
    one_call_at_a_time: bool = False,
    empty_args: bool = False,
) -> DeltaMessage | None:
    """One streaming step over the calls parsed so far from partial JSON (vLLM's llama-style
    streaming): flush the previous call's arguments when a new call starts, else send the name
    once, then the arguments as far as they are stable. `bad_name` is raised for a non-string name.

    vLLM jumps to the last call parsed, skipping calls that arrived whole in one chunk;
    `one_call_at_a_time` moves to the next call only (after sending the current call's name),
    which is the same for one call per chunk (see `advance_all_partial_calls`).
    vLLM never streams empty arguments (`{}` is falsy); with `empty_args` a call written with
    `{}` sends `"{}"` once its object is complete or the next call starts, as one-shot parsing
    returns it.
    """
    if not calls:
        return None
    tool = state["tool"]
    streamed: list[str] = state["streamed"]
    current = calls[tool]
    switch = len(calls) > tool + 1
    if switch and one_call_at_a_time and tool >= 0 and not state["name_sent"]:
        switch = not current.get("name")
    if switch:
        delta = None
        if tool >= 0:
            args = current.get("arguments")
            if args or (empty_args and args == {} and state["name_sent"]):
                tail = dumps(args)[len(streamed[tool]) :]
                delta = args_delta(tool, tail)
                streamed[tool] += tail
        state["tool"] = tool + 1 if one_call_at_a_time else len(calls) - 1
        state["name_sent"] = False
        streamed.append("")
        return delta
    delta = None
    if not state["name_sent"]:
        name = current.get("name")
        if name:
            if not isinstance(name, str):
                raise bad_name(name)
            delta = name_delta(tool, random_tool_call_id(), name)
            state["name_sent"] = True
    else:
        args = current.get("arguments")
        if args or (empty_args and args == {} and complete[tool] and not streamed[tool]):
            sent = len(streamed[tool])
            args_json = dumps(args)
            prev_args = state["prev"][tool].get("arguments")
            diff = None
            if complete[tool]:
                diff = args_json[sent:]
            elif prev_args:
                prev_json = dumps(prev_args)
                if args_json != prev_json:
                    diff = common_prefix(prev_json, args_json)[sent:]
            if diff is not None:
                delta = args_delta(tool, diff)
                streamed[tool] += diff
    state["prev"] = calls
    return delta


def advance_all_partial_calls(
    state: dict[str, Any],
    parse: Callable[[Allow], tuple[list[Any], list[bool]] | None],
    bad_name: type[Exception],
    empty_args: bool = False,
    open_call_waits: bool = False,
) -> DeltaMessage | None:
    """`advance_partial_calls` repeated while it makes progress, one call at a time, the deltas
    merged: a chunk holding several steps (whole calls) loses none of them. `parse(flags)`
    gives the calls so far and whether each is complete (None: not parsable yet); partial
    strings are allowed once the current call's name was sent. With one step per chunk this
    is one `advance_partial_calls` step. `open_call_waits`: the step that moves to a call
    whose object is still open ends the chunk (its name goes out with the next one, as vLLM's
    step to a new call sends nothing more)."""
    merged: DeltaMessage | None = None
    # the text does not change between steps: each flag value is parsed once
    parsed_by_flags: dict[Allow, tuple[list[Any], list[bool]] | None] = {}
    step, steps = 0, 64
    while step < steps:
        flags = ALLOW_ALL if state["name_sent"] else ALLOW_NO_PARTIAL_STR
        if flags not in parsed_by_flags:
            parsed_by_flags[flags] = parse(flags)
        parsed = parsed_by_flags[flags]
        if parsed is None:
            break
        calls, complete = parsed
        # a few steps per call (its name, its arguments): a chunk of many calls sends them all
        steps = max(steps, 4 * len(calls) + 4)
        before, prev = _progress(state), state["prev"]
        delta = advance_partial_calls(
            state, calls, complete, bad_name, one_call_at_a_time=True, empty_args=empty_args
        )
        if step and _progress(state) == before:
            state["prev"] = prev  # a step that sends nothing is the next chunk's to take
            break
        merged = merge_deltas(merged, delta)
        step += 1
        tool, previous_tool = state["tool"], before[0]
        if open_call_waits and tool != previous_tool and 0 <= tool < len(complete) and not complete[tool]:
            break
    return merged


def _progress(state: JSONState) -> tuple[Any, ...]:
    """What a step of `advance_partial_calls` can change: the call index, whether its name
    is sent, and the arguments text sent (a step only extends the current call's or adds
    one; summing every call's was quadratic in a chunk of many calls)."""
    tool, streamed = state["tool"], state["streamed"]
    current = len(streamed[tool]) if 0 <= tool < len(streamed) else 0
    return tool, state["name_sent"], len(streamed), current


def unstreamed_args(state: JSONState) -> str:
    """Arguments of the last parsed call not yet streamed (vLLM's end-of-stream flush), read
    from `state["prev"]` (parsed calls) and `state["streamed"]` (argument text sent per call)."""
    prev = state.get("prev") or []
    if not prev:
        return ""
    index = len(prev) - 1
    last = prev[index]
    args = last.get("arguments", {}) if isinstance(last, dict) else {}
    expected = args if isinstance(args, str) else dumps(args)
    streamed = state.get("streamed") or []
    actual = streamed[index] if index < len(streamed) else ""
    return expected[len(actual) :] if expected.startswith(actual) else ""


def merge_deltas(into: DeltaMessage | None, delta: DeltaMessage | None) -> DeltaMessage | None:
    """Two consecutive deltas as one; a call's later fragments join its entry."""
    return append_delta(into, delta, join_call_fragments=True)


class JsonToolParser(ToolParser):
    """Base of the JSON-style parsers: dict state plus vLLM's streaming bookkeeping.

    Subclasses implement `extract_tool_calls` and `step`. `stream` maintains, in the state:
    `text` (all tool-phase text so far, vLLM's `current_text`), `n_ids` and `last_id` (what the
    parsers read of `previous_token_ids`), `prev` (vLLM's `prev_tool_call_arr`: the parsed calls
    as of the last step), `streamed` (argument text already sent, per call), `tool` (index of the
    call being streamed) and `name_sent`.
    """

    # vLLM composes this parser's streaming through its own text accumulation (not engine based).
    engine_based: ClassVar[bool] = False
    # The generic JSON handling of tool_choice="required"/named applies to this format.
    supports_required_and_named: ClassVar[bool] = True

    def vocab_id(self, token: str) -> int | None:
        return cached_vocab(self.tokenizer).get(token)

    def initial_state(self) -> JSONState:
        return {"text": "", "n_ids": 0, "last_id": None, "prev": [], "streamed": [], "tool": -1,
                "name_sent": False}

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> DeltaMessage | None:
        if not state:
            state.update(self.initial_state())
        previous_text = state["text"]
        current_text = previous_text + delta_text
        try:
            return self.step(state, previous_text, current_text, delta_text, list(delta_ids))
        finally:
            state["text"] = current_text
            if delta_ids:
                state["n_ids"] += len(delta_ids)
                state["last_id"] = delta_ids[-1]

    def step(
        self,
        state: JSONState,
        previous_text: str,
        current_text: str,
        delta_text: str,
        delta_ids: list[int],
    ) -> DeltaMessage | None:
        raise NotImplementedError

    def remaining_args(self, state: JSONState) -> str:
        return unstreamed_args(state)
