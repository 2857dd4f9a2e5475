"""Hunyuan-A13B tool calls: `<tool_calls>[{"name": ..., "arguments": {...}}, ...]</tool_calls>`.

One-shot parsing takes the first `<tool_calls>` block (outside `<think>`) whose body is valid
JSON; content is the text before it. Streaming treats output starting with `[` (after an optional
`<tool_calls>`) as calls and finds names and argument objects with regular expressions.

vLLM's stream reads calls only when the output starts with them and sends a `<tool_calls>`
that arrives before its `[` as content. tokenfront's stream gives what one-shot parsing returns
(tests/tool_parsers/test_hunyuan_a13b_tool_parser.py::test_hunyuan_a13b_tool_parser_extract,
streamed): `<tool_calls>` (or a start of it at the end of the text, not a lone `<`) is held back until the
text after it shows whether a list follows; text before it is content and a `<tool_calls>[`
after it (outside `<think>`) starts the calls. Held text that opens no calls is released.
"""

from __future__ import annotations

import bisect
import json
import re
import secrets

from tokenfront.parsers.base import DeltaMessage, ExtractedToolCalls, JSONState
from tokenfront.parsers.engines.json_call_list import CallListParser, list_tool_calls
from tokenfront.parsers.engines.json_calls import no_calls
from tokenfront.parsers.engines.lazy_blocks import lazy_blocks
from tokenfront.parsers.registry import tool_parser

START = "<tool_calls>"
END = "</tool_calls>"
# The template's reply prefix, dropped from plain answers.
_REPLY_PREFIX = "助手："


def _one_shot_id(_index: int) -> str:
    return f"call_{secrets.token_hex(8)}"  # one-shot ids carry no index


def _skip_space(i: int, text: str) -> int:
    while i < len(text) and text[i].isspace():
        i += 1
    return i


def _inside_think(text: str, at: int) -> bool:
    return text.rfind("<think>", 0, at) > text.rfind("</think>", 0, at)


def _scan(text: str, start: int) -> tuple[int, int | None]:
    """(where the content that may be sent stops, offset of the calls' `[` or None), reading
    `text` from `start` (text before it was sent)."""
    first = _skip_space(0, text)
    if start <= first < len(text) and text[first] == "[":
        return first, first  # vLLM's case: the output is the list
    at = text.find("<", max(0, start - len(START)))
    while at != -1:
        rest = text[at : at + len(START)]  # bounded: a chunk of `<`s costs no copies of the text
        if rest == START or (2 <= len(rest) < len(START) and START.startswith(rest)):
            if not _inside_think(text, at):
                if rest != START:
                    return max(at, start), None  # a start of the marker at the end: wait
                body = _skip_space(at + len(START), text)
                if body == len(text):
                    return max(at, start), None  # the marker, its list not yet begun
                if text[body] == "[":
                    return max(at, start), body
        at = text.find("<", at + 1)
    return len(text), None


def split_output(text: str) -> tuple[str | None, str | None]:
    """(content before the calls, the calls' JSON text) or (text, None)."""
    thinks = list(lazy_blocks(text, "<think>", "</think>"))  # in order, not overlapping
    think_starts = [t0 for t0, _ in thinks]
    for start, end in lazy_blocks(text, START, END):
        # only the last think span starting before the block can hold it
        last = bisect.bisect_left(think_starts, start) - 1
        if last >= 0 and end < thinks[last][1]:
            continue
        body = text[start + len(START) : end - len(END)].strip()
        try:
            json.loads(body)
        except Exception:
            continue
        return text[:start], body
    return text, None


@tool_parser("hunyuan_a13b")
class HunyuanA13BToolParser(CallListParser):
    name = "hunyuan_a13b"

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        try:
            content, body = split_output(text)
            if not body:
                if content:
                    content = content.replace(_REPLY_PREFIX, "", 1)
                return no_calls(content)
            data = json.loads(body)
            if not isinstance(data, list):
                return no_calls(content or text)
            calls = list_tool_calls(data, _one_shot_id)
            if not content or not content.strip():
                content = None
            return ExtractedToolCalls(tools_called=bool(calls), tool_calls=calls, content=content)
        except Exception:
            return no_calls(text)

    def step(
        self,
        state: JSONState,
        previous_text: str,
        current_text: str,
        delta_text: str,
        delta_ids: list[int],
    ) -> DeltaMessage | None:
        lead = None
        start = state["call_at"]
        if start is None:
            shown = state["shown"]
            stop, start = _scan(current_text, shown)
            state["shown"] = stop
            if start is None:
                if shown == len(previous_text) and stop == len(current_text):
                    return DeltaMessage(content=delta_text)
                return DeltaMessage(content=current_text[shown:stop]) if stop > shown else None
            state["call_at"] = start
            lead = current_text[shown:stop]
        delta = self._calls(state, current_text, start)
        if lead:  # text before the calls in this chunk (whitespace too, as smaller chunks send it)
            delta = delta or DeltaMessage()
            delta.content = lead + (delta.content or "")
        return delta

    def _calls(self, state: JSONState, current_text: str, start: int) -> DeltaMessage | None:
        try:
            parsed = json.loads(current_text[start:])
            if isinstance(parsed, list):
                state["prev"] = parsed
        except json.JSONDecodeError:
            pass
        return self.call_step(state, current_text, start)

    def call_args(self, text: str, match: re.Match[str], cur: int, count: int) -> str:
        args_text = match.group(1)
        if cur != count - 1:
            nxt = text.find("},{", match.start())
            if nxt != -1:
                args_text = text[match.start() : nxt + 1].split('"arguments":')[1].strip()
        return args_text
