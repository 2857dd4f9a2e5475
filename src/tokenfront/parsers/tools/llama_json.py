"""Llama 3.x / 4 JSON tool calls: `{"name": ..., "parameters"|"arguments": {...}}`.

Calls may follow `<|python_tag|>` and several are separated by `; `. One-shot parsing decodes
every top-level JSON object in the text; streaming only treats output that starts with the tag or
with `{` as a tool call.
"""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar

from tokenfront.parsers.base import (
    DeltaMessage,
    ExtractedToolCalls,
    JSONState,
    ToolCall,
    random_tool_call_id,
)
from tokenfront.parsers.engines.json_calls import (
    JsonToolParser,
    MalformedJSON,
    SuffixLoads,
    advance_all_partial_calls,
    dumps,
    is_complete_json,
    no_calls,
)
from tokenfront.parsers.registry import tool_parser

_PROSE = re.compile(r"[A-Za-z]")
PYTHON_TAG = "<|python_tag|>"
CALL_SEPARATOR = "; "
_ARG_KEYS = frozenset(("parameters", "arguments"))


class _CallError(Exception):
    pass


def _glued(text: str, pos: int) -> bool:
    """Whether a call ending at `pos` is followed by text with no separator (`{call}{call}`)."""
    return pos < len(text) and not text[pos].isspace() and text[pos] != ";"


def _skip_separator(text: str, pos: int) -> int:
    """The position after the separator that starts at `pos` (whitespace, one `;`). With none
    (`{call}{call}`), two characters, as vLLM 0.33.0 steps past every call."""
    if _glued(text, pos):
        return pos + 2
    end = pos
    while end < len(text) and text[end].isspace():
        end += 1
    if end < len(text) and text[end] == ";":
        end += 1
    while end < len(text) and text[end].isspace():
        end += 1
    return end


@tool_parser("llama3_json")
class LlamaJsonToolParser(JsonToolParser):
    name = "llama3_json"
    # vLLM sets structural_tag_model="llama": under VLLM_ENFORCE_STRICT_TOOL_CALLING (default on)
    # tool_choice required/named then take the auto path, through this format's own parsing.
    supports_required_and_named: ClassVar[bool] = False
    forced_json_unless_strict = True

    def __init__(self, tokenizer: Any, ctx: Any) -> None:
        super().__init__(tokenizer, ctx)
        if self.vocab_id(PYTHON_TAG) is None:
            raise RuntimeError(f"Llama3JsonToolParser could not locate the bot token {PYTHON_TAG!r} in the tokenizer.")

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        if PYTHON_TAG not in text and "{" not in text:
            return no_calls(text)
        decoder = json.JSONDecoder()
        calls: list[ToolCall] = []
        end = -1
        for start, ch in enumerate(text):
            if ch != "{" or start <= end:
                continue
            last_end = max(end, 0)
            try:
                obj, used = decoder.raw_decode(text[start:])
                end = start + used
                name = obj["name"]
                args = obj["arguments"] if "arguments" in obj else obj["parameters"]
                if not isinstance(name, str):
                    raise _CallError(name)
                calls.append(ToolCall(name=name, arguments=dumps(args), id=random_tool_call_id()))
            except Exception:
                gap = text[last_end:start]
                if calls and "{" not in gap and _PROSE.search(gap):
                    # Deviation from vLLM 0.33.0 (docs/deviations.md): a brace inside prose
                    # after the calls does not cancel them (test_llama3_json_tool_parser.py::
                    # test_extract_tool_calls_brace_in_trailing_text / _json_fragment_in_…).
                    # An object right after the calls (`{call}{call}`, whose own start was
                    # skipped) is no prose: its inner object cancels them, as in 0.33.0.
                    break
                # Any undecodable object or missing key: the whole output is content.
                return no_calls(text)
        if calls:
            return ExtractedToolCalls(tools_called=True, tool_calls=calls, content=None)
        return no_calls(text)

    def step(
        self,
        state: JSONState,
        previous_text: str,
        current_text: str,
        delta_text: str,
        delta_ids: list[int],
    ) -> DeltaMessage | None:
        if not (current_text.startswith(PYTHON_TAG) or current_text.startswith("{")):
            return DeltaMessage(content=delta_text)
        cut: list[bool] = []
        try:
            delta = advance_all_partial_calls(
                state, lambda flags: self._parse(current_text, flags, cut), _CallError,
                empty_args=True, open_call_waits=True,
            )
        except Exception:
            return None
        return drop_idle(delta) if any(cut) else delta

    def finish(self, state: JSONState) -> DeltaMessage | None:
        """The end of a stream that held its text for calls and opened none: one-shot's answer
        (the text as content, or calls a single chunk brought whole), where vLLM 0.33.0 loses
        it (test_extract_tool_calls_missing_name_key, test_regex_timeout_handling; a whole
        output in one chunk: test_extract_tool_calls_brace_in_trailing_text)."""
        return held_text_answer(self, state)

    def remaining_args(self, state: JSONState) -> str:
        # Only for a call whose name was sent: a lone `{` after the calls is no call (vLLM
        # 0.33.0 appends its "{}" to the previous call's arguments).
        if state.get("tool", -1) != len(state.get("prev") or []) - 1 or not state.get("name_sent"):
            return ""
        return super().remaining_args(state)

    def skip_separator(self, text: str, pos: int) -> int:
        return _skip_separator(text, pos)

    def glued_text_fails(self, text: str, pos: int) -> bool:
        """Whether text written right after a call (no separator) fails the whole chunk: vLLM
        0.33.0 steps two characters past the call and reads no call there, so the chunk sends
        nothing, nor does any later one (no vLLM test writes calls back to back)."""
        return _glued(text, pos)

    def _call_follows(self, text: str, end: int) -> bool:
        """Whether a separator and the start of another object follow a call ending at `end`."""
        after = self.skip_separator(text, end)
        return after > end and text.startswith("{", after)

    def recover_call(self, text: str, pos: int) -> tuple[dict[str, Any], int] | None:
        """A closed call at `pos` whose JSON does not parse, read as one-shot reads it, and
        its length (None: no such reading; vLLM's stream stops there)."""
        return None

    def _parse(
        self, current_text: str, flags: Any, cut: list[bool] | None = None
    ) -> tuple[list[Any], list[bool]] | None:
        """The calls of `current_text` (partial JSON) and whether each is complete; text after
        complete calls that is no JSON call (prose, a stray brace) ends them (appends True to
        `cut`), as one-shot parsing keeps them. None: nothing parsable yet."""
        calls: list[Any] = []
        complete: list[bool] = []
        glued = False
        pos = len(PYTHON_TAG) if current_text.startswith(PYTHON_TAG) else 0
        after_call = pos  # where the last call's JSON ended
        loads = SuffixLoads(current_text, flags)
        try:
            while pos < len(current_text):
                try:
                    obj, used = loads(pos)
                    done = is_complete_json(current_text[pos : pos + used])
                except json.JSONDecodeError:
                    recovered = self.recover_call(current_text, pos)
                    if recovered is None:
                        raise
                    obj, used = recovered
                    done = True
                if (
                    done
                    and isinstance(obj, dict)
                    and not _ARG_KEYS & obj.keys()
                    and not self._call_follows(current_text, pos + used)
                ):
                    # a closed object without arguments is no call (one-shot's reading; the
                    # name is not sent when the object closes with it); followed by another
                    # call it is one without arguments, as vLLM 0.33.0 streams it
                    raise MalformedJSON("no arguments")
                complete.append(done)
                pos += used
                after_call = pos
                glued = self.glued_text_fails(current_text, pos)
                # Calls are separated by "; " (vLLM skips exactly two characters); any
                # whitespace with at most one ";" is read as a separator
                # (test_extract_tool_calls_streaming_parallel_separators).
                pos = self.skip_separator(current_text, pos)
                if "parameters" in obj:
                    if "arguments" in obj:
                        raise _CallError("both parameters and arguments")
                    obj["arguments"] = obj["parameters"]
                calls.append(obj)
        except (MalformedJSON, json.JSONDecodeError):
            if not (calls and all(complete)) or glued:
                return None
            # vLLM's loop steps two characters past a call before it reads on: text no longer
            # than that after the calls is never read, so the chunk still sends its (empty)
            # argument delta
            if cut is not None and len(current_text) - after_call > 2:
                cut.append(True)
        return calls, complete


def call_opened(state: JSONState) -> bool:
    """Whether the stream sent a call's name."""
    tool = state.get("tool", -1)
    return tool > 0 or (tool == 0 and bool(state.get("name_sent")))


def drop_idle(delta: DeltaMessage | None) -> DeltaMessage | None:
    """The delta without argument fragments that add nothing (None if nothing is left)."""
    if delta is None:
        return None
    delta.tool_calls = [
        tc for tc in delta.tool_calls if tc.id or tc.name or tc.arguments
    ]
    return delta if delta.tool_calls or delta.content else None


def held_text_answer(parser: Any, state: JSONState) -> DeltaMessage | None:
    """One-shot's answer for a stream whose text was all held for calls and that opened none."""
    text = state.get("text", "")
    if call_opened(state) or not (text.startswith(PYTHON_TAG) or text.startswith("{")):
        return None
    result = parser.extract_tool_calls(text)
    calls = [
        call.as_delta(i, call.id or random_tool_call_id())
        for i, call in enumerate(result.tool_calls)
    ]
    if not calls and not result.content:
        return None
    return DeltaMessage(content=result.content, tool_calls=calls)
