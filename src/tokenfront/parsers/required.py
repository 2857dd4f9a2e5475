"""tool_choice="required": the output is a JSON array of `{"name", "parameters"}` objects."""

from __future__ import annotations

import json
from typing import Any

from tokenfront.parsers.base import DeltaMessage, DeltaToolCall, JSONState, make_tool_call_id


def _valid_definition(item: Any) -> bool:
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        return False
    if item.get("parameters") is not None and not isinstance(item["parameters"], dict):
        return False
    if item.get("description") is not None and not isinstance(item["description"], str):
        return False
    for flag in ("strict", "defer_loading"):
        if item.get(flag) is not None and not _lax_bool(item[flag]):
            return False
    return True


_BOOL_STRINGS = {"0", "off", "f", "false", "n", "no", "1", "on", "t", "true", "y", "yes"}


def _lax_bool(value: Any) -> bool:
    """Whether pydantic's lax bool validation accepts this JSON value."""
    if isinstance(value, bool):
        return True
    if isinstance(value, int):
        return value in (0, 1)
    if isinstance(value, float):
        return value in (0.0, 1.0)
    return isinstance(value, str) and value.strip().lower() in _BOOL_STRINGS


def parse_required_calls(content: str) -> list[tuple[str, str]]:
    """(name, arguments JSON) per element, or [] unless the whole array validates."""
    try:
        value = json.loads(content)
    except ValueError:
        return []
    if not isinstance(value, list) or not all(_valid_definition(item) for item in value):
        return []
    return [
        (item["name"], json.dumps(item.get("parameters"), ensure_ascii=False)) for item in value
    ]


_KEY, _COLON, _VALUE, _STR, _CONTAINER, _SCALAR, _AFTER = range(7)
_TRACKED_KEYS = ("name", "parameters")
_KEY_CAP = max(map(len, _TRACKED_KEYS)) + 1


def required_stream_state() -> JSONState:
    """Scanner state for a streamed required-calls array: plain JSON data whose size does not
    grow with the output (only a call's name, and its arguments while its name is still unknown,
    are held)."""
    return {
        "d": 0,  # bracket depth
        "s": False,  # inside a string
        "e": False,  # after a backslash in a string
        "x": _KEY,  # what the current object expects next
        "k": "",  # current key (capped: only "name" and "parameters" matter)
        "ks": False,  # reading a key string
        "v": None,  # raw text of the name string being read
        "a": False,  # inside the current element's `parameters` value
        "vk": _AFTER,  # kind of the value being read
        "i": -1,  # index of the current element
        "nm": None,  # its name, once complete
        "as": False,  # its arguments started
        "pa": "",  # its arguments held until the name is known
        "an": False,  # its call was announced
        "stop": False,  # the text stopped being an array of objects
        "blk": False,  # an element ended without becoming a call: nothing more is streamed
        "any": False,  # a call was announced
    }


def required_stream_step(
    st: JSONState, text: str, history_count: int, id_type: str
) -> DeltaMessage | None:
    """Advance the required-calls scanner over one chunk: announces each element once its name
    and the start of its `parameters` are known, then streams the arguments text as it arrives."""
    out: dict[int, list[Any]] = {}  # index -> [id, name, arguments]
    started = 0

    def emit(piece: str) -> None:
        if st["blk"]:
            return
        if st["an"]:
            out.setdefault(st["i"], [None, None, ""])[2] += piece
        else:
            st["pa"] += piece

    def maybe_announce() -> None:
        nonlocal started
        if st["an"] or st["nm"] is None or not st["as"]:
            return
        st["an"] = st["any"] = True
        if st["blk"]:
            return
        call_id = make_tool_call_id(id_type, st["nm"], history_count + started)
        out[st["i"]] = [call_id, st["nm"], st["pa"]]
        st["pa"] = ""
        started += 1

    def end_value(closing: str) -> None:
        if st["a"]:
            if closing:
                emit(closing)
            st["a"] = False
        elif st["v"] is not None:
            try:
                st["nm"] = json.loads(st["v"] + closing)
            except ValueError:
                st["nm"] = None
            st["v"] = None
            maybe_announce()
        st["x"] = _AFTER

    def start_value(ch: str, kind: int) -> None:
        st["x"] = st["vk"] = kind
        if st["k"] == "parameters":
            st["a"] = st["as"] = True
            emit(ch)
            maybe_announce()
        elif st["k"] == "name" and kind == _STR:
            st["v"] = ch

    for ch in text:
        if st["stop"]:
            break
        depth = st["d"]
        if st["s"]:
            if st["ks"]:
                if st["e"]:
                    st["e"] = False
                elif ch == "\\":
                    st["e"] = True
                elif ch == '"':
                    st["s"] = st["ks"] = False
                    st["x"] = _COLON
                    continue
                if len(st["k"]) < _KEY_CAP:
                    st["k"] += ch
                continue
            closes = not st["e"] and ch == '"'
            st["e"] = not st["e"] and ch == "\\"
            if closes:
                st["s"] = False
                if depth == 2 and st["x"] == _STR:
                    end_value(ch)
                    continue
            if st["a"]:
                emit(ch)
            elif st["v"] is not None:
                st["v"] += ch
            continue
        if ch == '"':
            st["s"] = True
            if depth == 2 and st["i"] >= 0:
                if st["x"] == _KEY:
                    st["ks"], st["k"] = True, ""
                    continue
                if st["x"] == _VALUE:
                    start_value(ch, _STR)
                    continue
            if st["a"]:
                emit(ch)
            continue
        if ch in "{[":
            if depth == 0 and ch != "[" or depth == 1 and ch != "{":
                st["stop"] = True
                break
            st["d"] = depth + 1
            if depth == 1:
                _next_element(st)
            elif depth == 2 and st["x"] == _VALUE:
                start_value(ch, _CONTAINER)
            elif st["a"]:
                emit(ch)
            continue
        if ch in "}]":
            if depth == 2 and st["x"] == _SCALAR:
                end_value("")
            st["d"] = depth = depth - 1
            if depth == 2 and st["x"] == _CONTAINER:
                end_value(ch)
            elif depth == 1:
                st["blk"] = st["blk"] or not st["an"]
            elif depth <= 0:
                st["stop"] = True
                break
            elif st["a"]:
                emit(ch)
            continue
        if depth != 2 or st["i"] < 0:
            if st["a"]:
                emit(ch)
            continue
        if st["x"] == _SCALAR and (ch == "," or ch.isspace()):
            end_value("")
        elif st["a"]:
            emit(ch)
            continue
        if ch == ":":
            if st["x"] == _COLON:
                st["x"] = _VALUE
        elif ch == ",":
            st["x"], st["k"] = _KEY, ""
        elif st["x"] == _VALUE and not ch.isspace():
            start_value(ch, _SCALAR)
    if not out:
        return None
    calls = [
        DeltaToolCall(
            index=index, id=call_id, type="function" if call_id else None, name=name, arguments=args
        )
        for index, (call_id, name, args) in sorted(out.items())
        if call_id or args
    ]
    return DeltaMessage(tool_calls=calls) if calls else None


def _next_element(st: JSONState) -> None:
    st.update(i=st["i"] + 1, x=_KEY, k="", nm=None, v=None, a=False, pa="", an=False)
    st["as"] = False


def required_calls_delta(
    previous: str, current: str, history_count: int, id_type: str
) -> tuple[DeltaMessage | None, bool]:
    """The delta a whole-text rescan would stream between two texts of a required-calls array
    (used where the parser sees each chunk on its own), and whether a call was announced."""
    st = required_stream_state()
    required_stream_step(st, previous, history_count, id_type)
    delta = required_stream_step(st, current[len(previous) :], history_count, id_type)
    return delta, st["any"]
