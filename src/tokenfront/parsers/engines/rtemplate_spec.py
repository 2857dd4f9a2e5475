"""Response templates: the `response_template` block a checkpoint ships in its tokenizer config.

A template names the message fields (`thinking`, `content`, `tool_calls` for serving), each a
region of the output between an opener and a closer (a literal, a list of literals or a regex),
plus a `start_anchor` that marks where the assistant message begins in the prompt. At most one
field has no opener: it is the implicit region that catches text outside every other field.
Each field's body is read by a content parser (`rtemplate_values.py`) and may be reshaped by a
`transform` whose whole-string `{placeholders}` take the parsed body and the opener's named
captures.

This module only loads and checks templates; `rtemplate_scan.py` runs them.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import regex

from tokenfront.parsers.engines.rtemplate_values import CONTENT_PARSERS, check_transform

THINKING = "thinking"
CONTENT = "content"
TOOLS = "tool_calls"
SERVING_FIELDS = frozenset({THINKING, CONTENT, TOOLS})

_FIELD_KEYS = frozenset(
    {"open", "open_pattern", "close", "close_pattern", "content", "content_args", "repeats",
     "join", "optional", "transform", "transform_each"}
)
_TEMPLATE_KEYS = frozenset({"version", "defaults", "fields", "start_anchor", "start_anchor_pattern"})


@dataclass(frozen=True)
class Delimiter:
    """One opener or closer: the compiled regex, its literals (None for a regex) and whether a
    complete literal match at the end of the text could still grow into a longer literal."""

    pattern: Any
    literals: tuple[str, ...] | None
    can_extend: bool


@dataclass(frozen=True)
class Field:
    name: str
    opener: Delimiter | None
    closer: Delimiter | None
    content: str
    content_args: dict[str, Any]
    repeats: bool
    join: str | None
    transform: Any
    transform_each: bool

    @property
    def close_literals(self) -> tuple[str, ...]:
        return self.closer.literals or () if self.closer is not None else ()

    @property
    def open_literals(self) -> tuple[str, ...]:
        return self.opener.literals or () if self.opener is not None else ()


@dataclass(frozen=True)
class Template:
    fields: dict[str, Field]
    implicit: str | None
    anchor: Delimiter

    @property
    def anchor_literals(self) -> list[str]:
        """The message-start anchors as plain strings, when they can be spelled out."""
        if self.anchor.literals is not None:
            return list(self.anchor.literals)
        return expand_literals(self.anchor.pattern.pattern) or []


def _delimiter(scope: str, spec: dict[str, Any], literal_key: str, pattern_key: str) -> Delimiter | None:
    if literal_key in spec and pattern_key in spec:
        raise ValueError(f"{scope}: cannot specify both '{literal_key}' and '{pattern_key}'")
    if literal_key in spec:
        raw = spec[literal_key]
        if isinstance(raw, str):
            items = [raw]
        elif isinstance(raw, list) and raw and all(isinstance(item, str) for item in raw):
            items = list(dict.fromkeys(raw))
        else:
            raise ValueError(f"{scope}: '{literal_key}' must be a string or a non-empty list of strings")
        if "" in items:
            raise ValueError(f"{scope}: '{literal_key}' literals cannot be empty strings")
        longest_first = sorted(items, key=len, reverse=True)
        compiled = regex.compile("|".join(regex.escape(item) for item in longest_first), regex.DOTALL)
        extends = any(a != b and a.startswith(b) for a in items for b in items)
        return Delimiter(compiled, tuple(items), extends)
    if pattern_key in spec:
        try:
            return Delimiter(regex.compile(spec[pattern_key], regex.DOTALL), None, False)
        except (regex.error, TypeError) as exc:
            raise ValueError(f"{scope}: invalid {pattern_key} regex: {exc}") from exc
    return None


def _field(name: str, spec: Any) -> Field:
    scope = f"Field '{name}'"
    if not isinstance(spec, dict):
        raise ValueError(f"{scope} must be a dict")
    unknown = set(spec) - _FIELD_KEYS
    if unknown:
        raise ValueError(f"{scope}: unknown keys {sorted(unknown)}")
    content = spec.get("content", "text")
    if content not in CONTENT_PARSERS:
        raise ValueError(f"{scope}: unknown content parser '{content}'")
    opener = _delimiter(scope, spec, "open", "open_pattern")
    closer = _delimiter(scope, spec, "close", "close_pattern")
    join = spec.get("join")
    if join is not None and not isinstance(join, str):
        raise ValueError(f"{scope}: 'join' must be a string")
    if join is not None and not spec.get("repeats", False):
        raise ValueError(f"{scope}: 'join' requires 'repeats': true")
    transform = spec.get("transform")
    transform_each = spec.get("transform_each", False)
    if not isinstance(transform_each, bool):
        raise ValueError(f"{scope}: transform_each must be a bool")
    if transform_each and transform is None:
        raise ValueError(f"{scope}: transform_each is set but no transform was provided")
    if transform is not None:
        check_transform(scope, transform)
    else:
        groups = set(opener.pattern.groupindex if opener else ()) | set(
            closer.pattern.groupindex if closer else ()
        )
        if groups:
            raise ValueError(f"{scope}: named group(s) {sorted(groups)} need a 'transform'")
    return Field(
        name=name,
        opener=opener,
        closer=closer,
        content=content,
        content_args=dict(spec.get("content_args", {})),
        repeats=bool(spec.get("repeats", False)),
        join=join,
        transform=transform,
        transform_each=transform_each,
    )


def load_template(spec: Any) -> Template:
    """Check and compile a `response_template` dict (ValueError when it is not valid)."""
    if not isinstance(spec, dict):
        raise ValueError("response_template must be a dict")
    if spec.get("version", 1) != 1:
        raise ValueError(f"Unsupported response_template version: {spec.get('version')}")
    unknown = set(spec) - _TEMPLATE_KEYS
    if unknown:
        raise ValueError(f"Unknown keys in response_template: {sorted(unknown)}")
    if not isinstance(spec.get("defaults", {}), dict):
        raise ValueError("response_template.defaults must be a dict")
    raw_fields = spec.get("fields", {})
    if not isinstance(raw_fields, dict) or not raw_fields:
        raise ValueError("response_template.fields must be a non-empty dict")
    fields = {name: _field(name, raw) for name, raw in raw_fields.items()}
    implicit = [name for name, f in fields.items() if f.opener is None]
    if len(implicit) > 1:
        raise ValueError(f"At most one field may omit 'open'/'open_pattern'. Found: {', '.join(implicit)}")
    anchor = _delimiter("response_template", spec, "start_anchor", "start_anchor_pattern")
    if anchor is None:
        raise ValueError("response_template must define 'start_anchor' or 'start_anchor_pattern'.")
    return Template(fields=fields, implicit=implicit[0] if implicit else None, anchor=anchor)


def check_serving(spec: dict[str, Any]) -> Template:
    """vLLM's serving rules: only thinking / content / tool_calls (and a `role` default), and
    thinking / content plain streamable text."""
    template = load_template(spec)
    unsupported = (set(template.fields) - SERVING_FIELDS) | (set(spec.get("defaults", {})) - {"role"})
    if unsupported:
        raise ValueError(
            f"response_template contains unsupported semantic fields: {sorted(unsupported)}. "
            f"Supported fields are: {sorted(SERVING_FIELDS)}"
        )
    for name in (THINKING, CONTENT):
        f = template.fields.get(name)
        if f is not None and (f.content != "text" or f.transform is not None or f.join is not None):
            raise ValueError(f"response_template field {name!r} uses semantics that cannot be streamed")
    return template


@lru_cache(maxsize=64)
def _serving_template(spec_json: str) -> Template:
    spec = json.loads(spec_json)
    check_serving(spec)
    streaming = copy.deepcopy(spec)
    fields = streaming["fields"]
    # Text outside every explicit region is content when no field catches it.
    if CONTENT not in fields and all("open" in f or "open_pattern" in f for f in fields.values()):
        fields[CONTENT] = {}
    return load_template(streaming)


def serving_template(spec: dict[str, Any]) -> Template:
    """The compiled template as serving runs it (cached per template)."""
    return _serving_template(json.dumps(spec, sort_keys=True))


def tokenizer_template(tokenizer: Any) -> dict[str, Any] | None:
    """The `response_template` a tokenizer was loaded with, if any."""
    template = getattr(tokenizer, "response_template", None)
    if not isinstance(template, dict):
        init_kwargs = getattr(tokenizer, "init_kwargs", None) or {}
        template = init_kwargs.get("response_template")
    return template if isinstance(template, dict) else None


# ---- literal expansion of simple anchor patterns ---------------------------------------------
_META = frozenset(".^$*+?{}[]\\|()")
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t"}
_MAX_LITERALS = 16


def expand_literals(pattern: str) -> list[str] | None:
    """Every string a pattern of literals, escapes, `(?:...)` groups, `|` and single `?` matches
    (at most 16), or None when the pattern is anything richer."""
    try:
        result, index = _alternation(pattern, 0)
    except _NotLiteral:
        return None
    if index != len(pattern):
        return None
    return result


class _NotLiteral(Exception):
    pass


def _alternation(pattern: str, index: int) -> tuple[list[str], int]:
    out: list[str] = []
    while True:
        branch, index = _sequence(pattern, index)
        out.extend(branch)
        if index < len(pattern) and pattern[index] == "|":
            index += 1
            continue
        break
    out = list(dict.fromkeys(out))
    if len(out) > _MAX_LITERALS:
        raise _NotLiteral
    return out, index


def _sequence(pattern: str, index: int) -> tuple[list[str], int]:
    strings = [""]
    while index < len(pattern) and pattern[index] not in "|)":
        char = pattern[index]
        if pattern.startswith("(?:", index):
            atom, index = _alternation(pattern, index + 3)
            if not pattern.startswith(")", index):
                raise _NotLiteral
            index += 1
        elif char == "\\" and index + 1 < len(pattern):
            escaped = pattern[index + 1]
            if escaped.isalnum() and escaped not in _ESCAPES:
                raise _NotLiteral
            atom = [_ESCAPES.get(escaped, escaped)]
            index += 2
        elif char in _META:
            raise _NotLiteral
        else:
            atom = [char]
            index += 1
        if pattern.startswith("?", index):
            atom = ["", *atom]
            index += 1
        strings = [head + tail for head in strings for tail in atom]
        if len(strings) > _MAX_LITERALS:
            raise _NotLiteral
    return strings, index
