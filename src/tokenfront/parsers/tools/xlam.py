"""xLAM tool calls: a JSON array `[{"name": ..., "arguments": {...}}, ...]`, bare or wrapped.

The array may be the whole output, follow `</think>`, or sit in a ```json block, after
`[TOOL_CALLS]` or inside `<tool_call>...</tool_call>`. Streaming finds names and argument
objects with regular expressions over the text so far (vLLM's approach, quirks included).

Where vLLM's stream loses what one-shot parsing returns (tests/tool_parsers/
test_xlam_tool_parser.py::test_extract_tool_calls, streamed), tokenfront's keeps it: a block
opener (```json, `[TOOL_CALLS]`, `<tool_call>`, or a start of one at the end of the text,
a bare ``` included: not a lone `[` or `<`) is held back while the text after it can still
open a list, so neither the marker nor partial JSON leaks into the content (vLLM: streamed
as content until `"name"` and `"arguments"` appear), and text that precedes the calls in
the chunk that starts them (e.g. `<think>…</think>` and the list in one chunk) is sent as
content (vLLM: dropped). Held text that never opens calls is
released when that becomes clear or at the end.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from tokenfront.parsers.base import DeltaMessage, ExtractedToolCalls, JSONState
from tokenfront.parsers.engines.json_call_list import (
    CallListParser,
    call_id,
    complete_calls,
    list_tool_calls,
)
from tokenfront.parsers.engines.json_calls import dumps, is_complete_json, no_calls
from tokenfront.parsers.engines.lazy_blocks import lazy_blocks, lazy_bodies, without
from tokenfront.parsers.registry import tool_parser


@dataclass(frozen=True)
class _Wrapping:
    """One way the calls may be wrapped: the bodies vLLM's pattern finds, and the text with
    the wrapped blocks removed."""

    bodies: Callable[[str], list[str]]
    removed: Callable[[str], str]


def _by_pattern(pattern: str) -> _Wrapping:
    compiled = re.compile(pattern)
    return _Wrapping(compiled.findall, lambda text: compiled.sub("", text))


def _by_markers(opener: str, closer: str) -> _Wrapping:
    # vLLM's lazy `opener(.*?)closer`, which reads to the end from every cut block
    return _Wrapping(
        lambda text: lazy_bodies(text, opener, closer),
        lambda text: without(text, lazy_blocks(text, opener, closer)),
    )


_WRAPPINGS = (
    _by_pattern(r"```(?:json)?\s*([\s\S]*?)```"),
    _by_pattern(r"\[TOOL_CALLS\]([\s\S]*?)(?=\n|$)"),
    _by_markers("<tool_call>", "</tool_call>"),
)
_THINK_RE = re.compile(r"</think>([\s\S]*)")
_PARTIAL_NAME_RE = re.compile(r'"name"\s*:\s*"([^"]*)')
_OPEN_BLOCK_RE = re.compile(r"```(?:json)?\s*([\s\S]*?)(?:```|$)")


def split_output(text: str) -> tuple[str | None, str | None]:
    """(content, the JSON text that may hold the calls)."""
    think = _THINK_RE.search(text)
    if think:
        content = text[: think.start() + len("</think>")].strip()
        after = think.group(1).strip()
        if is_complete_json(after):
            return content, after
        for wrapping in _WRAPPINGS:
            for found in wrapping.bodies(after):
                if is_complete_json(found):
                    return content, found
    for wrapping in _WRAPPINGS:
        for found in wrapping.bodies(text):
            if is_complete_json(found):
                return wrapping.removed(text).strip(), found
    if text.strip().startswith("["):
        if is_complete_json(text):
            return None, text
        if "{" in text and "name" in text and "arguments" in text:
            return None, text
    return text, None


def _search_text(
    current_text: str, calls_text: str | None, has_block: bool, call_at: int = 0
) -> tuple[str, int]:
    """The text whose names and argument objects are streamed, and where its calls start."""
    if calls_text:
        return calls_text, 0
    if has_block:
        block = _OPEN_BLOCK_RE.search(current_text)
        if block:
            candidate = block.group(1).strip()
            if candidate.startswith("[") and '"name"' in candidate and '"arguments"' in candidate:
                return candidate, 0
    return current_text, call_at


_OPENERS = ("```", "[TOOL_CALLS]", "<tool_call>")
_FENCE_OPEN_RE = re.compile(r"```(?:|j|js|jso|json\s*)")
_FENCE_LIST_RE = re.compile(r"```(?:json)?\s*\[")
_TAG_LIST_RE = re.compile(r"(?:\[TOOL_CALLS\]|<tool_call>)\s*(?:\[|$)")
_OPENER_CHARS_RE = re.compile(r"[`\[<]")
_LOOKBACK = len("[TOOL_CALLS]")


def _opens_calls(text: str, at: int, last_fence: int, last_close: int) -> bool:
    """Whether the text from a possible block opener at `at` can still open a call list
    (`last_fence` / `last_close`: where the text's last ``` / `</tool_call>` starts).

    Only specific starts count (a tag's first two characters, a fence up to ```json): a lone
    `[` or `<` at the end of a chunk is sent (prose keeps vLLM's chunks; a held `[` would move
    the recorded tf-xlam-text_{before,around}_call-stream chunks). A bare ``` waits for its
    next token: sent at once, a ```json opener split over tokens left its ``` in the content
    (test_extract_tool_calls[single_tool_with_json_code_block], streamed); a code block's
    ``` goes out one token later (the recorded code-block streams have no tools, so no
    tool parser)."""
    rest = text[at : at + _LOOKBACK]  # bounded: a chunk of `[`s copies no rest of the text
    if len(rest) >= 2 and len(text) - at < _LOOKBACK and any(
        op.startswith(rest) and op != rest for op in _OPENERS[1:]
    ):
        return True  # a start of a tag at the end of the text
    if rest.startswith("```"):
        if _FENCE_OPEN_RE.fullmatch(text, at):
            return True
        return bool(_FENCE_LIST_RE.match(text, at)) and last_fence < at + 3
    if rest.startswith(("[TOOL_CALLS]", "<tool_call>")):
        return bool(_TAG_LIST_RE.match(text, at)) and last_close < at
    return False


def _hold_at(text: str, start: int) -> int:
    """Where the content that may be sent (from `start` on) stops: at a possible block
    opener, or at `start` inside one that began in text already sent."""
    last_fence, last_close = text.rfind("```"), text.rfind("</tool_call>")
    for found in _OPENER_CHARS_RE.finditer(text, max(0, start - _LOOKBACK)):
        if _opens_calls(text, found.start(), last_fence, last_close):
            return max(found.start(), start)
    return len(text)


def _calls_start(text: str, start: int) -> int:
    """Where the calls begin in a text first read as calls (content before it is sent)."""
    think = _THINK_RE.search(text, start)
    if think:
        return think.start() + len("</think>")
    found = [text.find(op, start) for op in _OPENERS]
    return min((at for at in found if at >= 0), default=start)


def _has_block(text: str) -> bool:
    return (
        "```json" in text or "```\n[" in text or "[TOOL_CALLS]" in text or "<tool_call>" in text
    )


@tool_parser("xlam")
class XLAMToolParser(CallListParser):
    name = "xlam"

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        try:
            content, calls_text = split_output(text)
            if not calls_text:
                return no_calls(content)
            data = json.loads(calls_text)
            if not isinstance(data, list):
                return no_calls(content or text)
            calls = list_tool_calls(data, call_id)
            return ExtractedToolCalls(tools_called=bool(calls), tool_calls=calls, content=content)
        except Exception:
            return no_calls(text)

    def complete(self, state: JSONState, text: str, call_at: int) -> DeltaMessage | None:
        try:
            calls_text = split_output(text)[1]
        except Exception:
            return None
        search, start = _search_text(text, calls_text, _has_block(text), call_at)
        return complete_calls(state, search, call_id, start)

    def step(
        self,
        state: JSONState,
        previous_text: str,
        current_text: str,
        delta_text: str,
        delta_ids: list[int],
    ) -> DeltaMessage | None:
        stripped = current_text.strip()
        _content, calls_text = split_output(current_text)
        has_block = _has_block(current_text)
        is_call = (
            stripped.startswith("[")
            or stripped.startswith("<tool_call>")
            or stripped.startswith("[TOOL_CALLS]")
            or "</think>[" in current_text
            or calls_text is not None
            or (has_block and '"name"' in current_text and '"arguments"' in current_text)
        )
        if not is_call:
            return self._content(state, previous_text, current_text, delta_text)
        lead = None
        if state["call_at"] is None:
            start = state["shown"]
            state["call_at"] = _calls_start(current_text, start)
            lead = current_text[start : state["call_at"]]
            state["shown"] = len(current_text)
        try:
            delta = self._advance(state, current_text, calls_text, has_block)
        except Exception:
            return DeltaMessage(content=delta_text)
        if lead and lead.strip():  # text before the calls in this chunk (vLLM: dropped)
            delta = delta or DeltaMessage()
            delta.content = lead + (delta.content or "")
        return delta

    def _content(
        self, state: JSONState, previous_text: str, current_text: str, delta_text: str
    ) -> DeltaMessage | None:
        """A chunk of plain text: sent up to a possible block opener."""
        if state["call_at"] is not None:
            return DeltaMessage(content=delta_text)
        start = state["shown"]
        stop = _hold_at(current_text, start)
        state["shown"] = stop
        if start == len(previous_text) and stop == len(current_text):
            return DeltaMessage(content=delta_text)
        return DeltaMessage(content=current_text[start:stop]) if stop > start else None

    def _advance(
        self, state: JSONState, current_text: str, calls_text: str | None, has_block: bool
    ) -> DeltaMessage | None:
        try:
            parsed = json.loads(calls_text if calls_text else current_text)
            if isinstance(parsed, list):
                state["prev"] = parsed
        except json.JSONDecodeError:
            pass
        search, start = _search_text(current_text, calls_text, has_block, state["call_at"] or 0)
        return self.call_step(state, search, start)

    def call_args(self, text: str, match: re.Match[str], cur: int, count: int) -> str:
        args_text = match.group(1)
        if count > 1:
            try:
                tools = json.loads(text)
                if isinstance(tools, list) and cur < len(tools):
                    this = tools[cur]
                    if isinstance(this.get("arguments"), dict):
                        args_text = dumps(this["arguments"])
                    else:
                        args_text = str(this.get("arguments", "{}"))
            except (json.JSONDecodeError, KeyError, IndexError):
                pass
        return args_text
