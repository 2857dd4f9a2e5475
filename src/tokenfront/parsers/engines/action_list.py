"""The action part of the mode filter: a JSON list of tool calls read key by key.

Cohere's action block is `[{"tool_call_id": "0", "tool_name": "f", "parameters": {...}}, ...]`.
It is not parsed as one JSON document: the reader looks, in order, for the
`"tool_call_id": "` key, the id's closing quote, the `"tool_name": "` key, the name's closing
quote and then either `"parameters": {"` (an object with at least one key, whose raw text is
streamed until it forms a complete JSON value) or a `}` (a call without arguments). Every
step waits for more text when its pattern is not there yet, so keys in another order or a
missing id yield fewer calls. Streamed parameter text loses up to eight leading whitespace
characters per line (the indentation of a pretty-printed list). Output ending in a backslash
waits for the next chunk.
"""

from __future__ import annotations

import json
import re

from tokenfront.parsers.base import JSONState
from tokenfront.parsers.engines.cited_text import Batch

_ID_KEY = re.compile(r'"tool_call_id":\s*"')
_NAME_KEY = re.compile(r'"tool_name":\s*"')
_OBJECT_PARAMS = re.compile(r'"parameters":\s*\{\s*"')
_PARAMS_KEY = re.compile(r'"parameters":\s*')
_INDENT_PER_LINE = 8

# Action reader steps.
BEFORE_CALL = "before"  # looking for the id key (also after a call ended)
IN_ID = "id"
AFTER_ID = "after_id"  # looking for the name key
IN_NAME = "name"
AFTER_NAME = "after_name"  # looking for the parameters object or the call's end
IN_PARAMS = "params"

_DECODER = json.JSONDecoder(parse_constant=lambda name: (_ for _ in ()).throw(ValueError(name)))


def new_action_state() -> JSONState:
    return {"am": BEFORE_CALL, "ai": 0, "apb": "", "ind": 0, "nw": False}


def _closing_quote(text: str) -> int:
    """Index of the first `"` not escaped by an odd run of backslashes, else -1."""
    start = 0
    while True:
        idx = text.find('"', start)
        if idx < 0:
            return -1
        run = 0
        while idx - run - 1 >= 0 and text[idx - run - 1] == "\\":
            run += 1
        if run % 2 == 0:
            return idx
        start = idx + 1


def _json_value_end(buffered: str, text: str) -> int:
    """Where in `text` the JSON value begun in `buffered` completes, else -1."""
    whole = buffered + text
    lead = len(whole) - len(whole.lstrip(" \t\n\r"))
    try:
        _, end = _DECODER.raw_decode(whole, lead)
    except ValueError:
        return -1
    return end - len(buffered) if end >= len(buffered) else -1


def _dedent(state: JSONState, text: str) -> str:
    kept: list[str] = []
    for ch in text:
        if ch == "\n":
            state["ind"], state["nw"] = 0, False
            kept.append(ch)
        elif ch.isspace():
            if state["ind"] < _INDENT_PER_LINE and not state["nw"]:
                state["ind"] += 1
                continue
            kept.append(ch)
        else:
            state["nw"] = True
            kept.append(ch)
    return "".join(kept)


def parse_actions(state: JSONState, text: str, out: Batch) -> int:
    """Advance the action reader over `text`; returns how much of it is used up."""
    if not text or text.endswith("\\"):
        return 0
    step = state["am"]
    if step in (BEFORE_CALL, AFTER_ID):
        key = _ID_KEY if step == BEFORE_CALL else _NAME_KEY
        found = key.search(text)
        if found is None:
            return 0
        state["am"] = IN_ID if step == BEFORE_CALL else IN_NAME
        return found.end() + parse_actions(state, text[found.end():], out)
    if step in (IN_ID, IN_NAME):
        idx = _closing_quote(text)
        if idx < 0:
            return 0
        if idx > 0:
            field = "id" if step == IN_ID else "name"
            out.add_call(state["ai"], **{field: text[:idx]})
        state["am"] = AFTER_ID if step == IN_ID else AFTER_NAME
        return idx + 1 + parse_actions(state, text[idx + 1:], out)
    if step == AFTER_NAME:
        if _OBJECT_PARAMS.search(text):
            state["am"] = IN_PARAMS
            found = _PARAMS_KEY.search(text)
            assert found is not None
            return found.end() + parse_actions(state, text[found.end():], out)
        idx = text.find("}")
        if idx < 0:
            return 0
        _end_call(state)
        return idx + parse_actions(state, text[idx:], out)
    return _params(state, text, out)


def _end_call(state: JSONState) -> None:
    state["am"] = BEFORE_CALL
    state["ai"] += 1


def _params(state: JSONState, text: str, out: Batch) -> int:
    end = _json_value_end(state["apb"], text)
    if end < 0:
        piece = _dedent(state, text)
        if piece:
            out.add_call(state["ai"], args=piece)
        state["apb"] += text
        return len(text)
    piece = _dedent(state, text[:end])
    if piece:
        out.add_call(state["ai"], args=piece)
    state["apb"] = ""
    _end_call(state)
    return end + parse_actions(state, text[end:], out)
