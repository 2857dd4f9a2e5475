"""tool_choice="required": the output is a JSON array of `{"name", "parameters"}` objects."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from tokenfront.parsers.base import DeltaMessage, DeltaToolCall, make_tool_call_id


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


@dataclass
class _Span:
    name: str | None = None
    name_end: int | None = None
    args_start: int | None = None
    args_end: int | None = None

    def ready_at(self, length: int) -> bool:
        return (
            self.name is not None
            and self.name_end is not None
            and self.name_end <= length
            and self.args_start is not None
            and self.args_start < length
        )

    @property
    def ready(self) -> bool:
        return self.name is not None and self.args_start is not None


_KEY, _COLON, _VALUE, _STR, _CONTAINER, _SCALAR, _AFTER = range(7)


def _scan(text: str) -> list[_Span]:
    """Where each element's name and `parameters` value sit in a (partial) array."""
    spans: list[_Span] = []
    depth = 0
    in_string = escaped = False
    string_start = value_start = 0
    cur: _Span | None = None
    expect = _KEY
    key: str | None = None

    def end_value(pos: int) -> None:
        nonlocal expect
        assert cur is not None
        if key == "parameters":
            cur.args_end = pos
        elif key == "name" and expect == _STR:
            try:
                cur.name = json.loads(text[value_start:pos])
                cur.name_end = pos
            except ValueError:
                cur.name = None
        expect = _AFTER

    def start_value(pos: int, kind: int) -> None:
        nonlocal expect, value_start
        assert cur is not None
        value_start = pos
        if key == "parameters":
            cur.args_start = pos
        expect = kind

    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
                if depth == 2 and cur is not None:
                    if expect == _KEY:
                        key = text[string_start + 1 : i]
                        expect = _COLON
                    elif expect == _STR:
                        end_value(i + 1)
            continue
        if ch == '"':
            in_string = True
            string_start = i
            if depth == 2 and cur is not None and expect == _VALUE:
                start_value(i, _STR)
            continue
        if ch in "{[":
            if depth == 0:
                if ch != "[":
                    return spans
            elif depth == 1:
                if ch != "{":
                    return spans
                cur = _Span()
                spans.append(cur)
                expect = _KEY
                key = None
            elif depth == 2 and cur is not None and expect == _VALUE:
                start_value(i, _CONTAINER)
            depth += 1
            continue
        if ch in "}]":
            if depth == 2 and cur is not None and expect == _SCALAR:
                end_value(i)
            depth -= 1
            if depth == 2 and cur is not None and expect == _CONTAINER:
                end_value(i + 1)
            elif depth == 1:
                cur = None
            elif depth <= 0:
                return spans
            continue
        if depth != 2 or cur is None:
            continue
        if ch == ":":
            if expect == _COLON:
                expect = _VALUE
        elif ch == ",":
            if expect == _SCALAR:
                end_value(i)
            expect = _KEY
            key = None
        elif ch.isspace():
            if expect == _SCALAR:
                end_value(i)
        elif expect == _VALUE:
            start_value(i, _SCALAR)
    return spans


def required_calls_delta(
    previous: str, current: str, history_count: int, id_type: str
) -> tuple[DeltaMessage | None, bool]:
    """The streamed delta between two texts of a required-calls array, and whether any call
    has been announced."""
    if not current:
        return None, False
    spans = _scan(current)
    sent = len(previous)
    calls: list[DeltaToolCall] = []
    started = 0
    for index, span in enumerate(spans):
        if not span.ready:
            break
        assert span.args_start is not None
        end = span.args_end if span.args_end is not None else len(current)
        if span.ready_at(sent):
            new = current[min(end, sent) : end]
            if new:
                calls.append(DeltaToolCall(index=index, arguments=new))
            continue
        calls.append(
            DeltaToolCall(
                index=index,
                id=make_tool_call_id(id_type, span.name, history_count + started),
                type="function",
                name=span.name,
                arguments=current[span.args_start : end],
            )
        )
        started += 1
    returned = any(span.ready for span in spans)
    if not calls:
        return None, returned
    return DeltaMessage(tool_calls=calls), returned
