"""Streaming JSON arguments whose values the tool schema retypes (`schema_types.coerce_object`).

One-shot extraction re-serialises an arguments object with `json.dumps` once a value changes
type (`{"v":"3"}` for an integer `v` becomes `{"v": 3}`) and keeps the raw text otherwise. A
stream that must end with the same bytes can only send what both outcomes share:

* `retyped_prefix(raw, properties)` renders the settled part of a partial object the way
  `json.dumps(coerced)` will (`", "` / `": "` separators, values retyped), stopping before
  the first value whose final form is still open; it also says whether a settled value
  changed type (then the dumps form is certain).
* `settled_prefix` is what may be sent: the dumps rendering once a change is certain,
  otherwise the part of it the raw text agrees with.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from tokenfront.parsers.engines.json_calls import common_prefix
from tokenfront.parsers.engines.schema_types import coerce_object, schema_types

_WS = " \t\n\r"
_SCALAR_CHARS = frozenset("-+0123456789.eEtrufalsn")
_NUMBER_START = re.compile(r"-?\d*(\.\d*)?")


class _Open(Exception):
    """The raw text ends inside what is being rendered."""


class _Bad(Exception):
    """The raw text is not JSON from here on."""


class _Render:
    def __init__(self, raw: str) -> None:
        self.raw = raw
        self.out: list[str] = []
        self.changed = False

    def ws(self, i: int) -> int:
        while i < len(self.raw) and self.raw[i] in _WS:
            i += 1
        if i >= len(self.raw):
            raise _Open
        return i

    def obj(self, i: int, schema: dict[str, Any] | None) -> int:
        props = schema.get("properties") if schema else None
        props = props if isinstance(props, dict) else None
        self.out.append("{")
        i = self.ws(i + 1)
        if self.raw[i] == "}":
            self.out.append("}")
            return i + 1
        while True:
            if self.raw[i] != '"':
                raise _Bad
            key, i = self.string(i, streams=True)
            self.out.append(json.dumps(key, ensure_ascii=False))
            i = self.ws(i)
            if self.raw[i] != ":":
                raise _Bad
            self.out.append(": ")
            child = props.get(key) if props is not None else None
            i = self.value(self.ws(i + 1), child if isinstance(child, dict) else None)
            i = self.ws(i)
            if self.raw[i] == "}":
                self.out.append("}")
                return i + 1
            if self.raw[i] != ",":
                raise _Bad
            self.out.append(", ")
            i = self.ws(i + 1)

    def arr(self, i: int, schema: dict[str, Any] | None) -> int:
        items = schema.get("items") if schema else None
        items = items if isinstance(items, dict) else None
        self.out.append("[")
        i = self.ws(i + 1)
        if self.raw[i] == "]":
            self.out.append("]")
            return i + 1
        while True:
            i = self.ws(self.value(i, items))
            if self.raw[i] == "]":
                self.out.append("]")
                return i + 1
            if self.raw[i] != ",":
                raise _Bad
            self.out.append(", ")
            i = self.ws(i + 1)

    def value(self, i: int, schema: dict[str, Any] | None) -> int:
        ch = self.raw[i]
        if ch == "{":
            return self.obj(i, schema)
        if ch == "[":
            return self.arr(i, schema)
        types = set(schema_types(schema)) if schema is not None else None
        if ch == '"':
            text, end = self.string(i, streams=types is None or types == {"string"})
            self.scalar(text, schema)
            return end
        end = i
        while end < len(self.raw) and self.raw[end] in _SCALAR_CHARS:
            end += 1
        token = self.raw[i:end]
        if end >= len(self.raw):
            self.out.append(_growing(token, types))
            raise _Open
        try:
            parsed = json.loads(token)
        except ValueError as exc:
            raise _Bad from exc
        if isinstance(parsed, float) and not math.isfinite(parsed):
            raise _Bad
        self.scalar(parsed, schema)
        return end

    def scalar(self, value: Any, schema: dict[str, Any] | None) -> None:
        if schema is not None:
            holder = {"v": value}
            self.changed = coerce_object(holder, {"v": schema}) or self.changed
            value = holder["v"]
        self.out.append(json.dumps(value, ensure_ascii=False))

    def string(self, i: int, *, streams: bool) -> tuple[str, int]:
        """A string literal at `i`: (decoded text, index after it). An unterminated one
        raises `_Open`, after rendering its settled part when `streams`."""
        j, n = i + 1, len(self.raw)
        while j < n:
            if self.raw[j] == "\\":
                j += 2
                continue
            if self.raw[j] == '"':
                try:
                    return json.loads(self.raw[i : j + 1]), j + 1
                except ValueError as exc:
                    raise _Bad from exc
            j += 1
        if streams:
            self.out.append(_open_string(self.raw[i + 1 :]))
        raise _Open


def _growing(token: str, types: set[str] | None) -> str:
    """The settled part of a number or literal still growing at the end of the text: what no
    retyping rewrites (nothing under a string type, no digits under a boolean one). An
    integral fraction under a number type (`1.0` -> `1`) is the exception the final flush
    answers with the raw text (`SectionToolParser._on_end`)."""
    if token.isalpha():
        return token if types is None or "string" not in types else ""
    if types is not None and types & {"string", "boolean"}:
        return ""
    return token if _NUMBER_START.fullmatch(token) else ""


def _open_string(body: str) -> str:
    """`json.dumps` of an unterminated string's settled characters, without the closing quote."""
    i = settled = 0
    while i < len(body):
        step = 1 if body[i] != "\\" else 6 if body[i + 1 : i + 2] == "u" else 2
        if i + step > len(body):
            break
        i += step
        settled = i
    try:
        text = json.loads('"' + body[:settled] + '"')
    except ValueError:
        return '"'
    if text and "\ud800" <= text[-1] <= "\udbff":
        text = text[:-1]  # half a surrogate pair
    return json.dumps(text, ensure_ascii=False)[:-1]


def retyped_prefix(raw: str, properties: dict[str, Any]) -> tuple[str, bool]:
    """The settled `json.dumps` rendering of the partial arguments object `raw`, values retyped
    by `properties`, and whether a settled value changed type. "" when `raw` is no object."""
    render = _Render(raw)
    try:
        start = render.ws(0)
        if raw[start] != "{":
            return "", False
        render.obj(start, {"properties": properties})
    except (_Open, _Bad):
        pass
    return "".join(render.out), render.changed


def settled_prefix(raw: str, properties: dict[str, Any]) -> str:
    """What of the arguments may be streamed: the retyped rendering once a change is certain,
    else the longest prefix the raw text and that rendering share."""
    rendered, changed = retyped_prefix(raw, properties)
    if changed:
        return rendered
    return common_prefix(raw, rendered)
