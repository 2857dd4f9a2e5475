"""Argument grammars for `beam`'s template-derived structural tag (`rtemplate_grammar`).

A call's arguments are constrained in the format of the tool-call field's content parser:
`json` as one xgrammar `json_schema` node, `xml-inline` as a sequence of parameter tags (raw
text for string values, JSON for typed ones, constant strings for string enums, a regex for a
string `format` / `pattern`), in declared order or also alphabetically. Whatever the grammar
lets through must read back to the same arguments through the parser, so every shape the
parser could misread (a value that may spell a closer, schemas the XML parser cannot type,
keywords the grammar does not hold) yields None: no argument grammar, and then no tag.

Nodes are plain dicts, dumped as vLLM dumps them (only the keys it sets).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

import regex

from tokenfront.parsers.engines.rtemplate_values import parse_content, schema_types
from tokenfront.render import rtemplate_literals as lit

try:  # Python 3.11+: the regex parser and its constants live in re._parser
    from re import _parser as sre_parse  # type: ignore[attr-defined]

    sre_constants = sre_parse
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

Fmt = dict[str, Any]
ANY_TEXT: Fmt = {"type": "any_text"}
# At most a newline between parameters (a longer run could go on until max_tokens).
SEPARATOR: Fmt = {"type": "regex", "pattern": r"\n?"}
_ANNOTATIONS = frozenset({"title", "description", "default", "examples", "deprecated", "$comment", "$schema", "$id"})
_OBJECT_KEYS = frozenset({"type", "properties", "required", "additionalProperties", "$defs", "definitions"})
_TEXT_KEYS = frozenset({"type", "nullable", "enum", "const", "anyOf", "oneOf"})
_STRING_REGEX_KEYS = frozenset({"type", "format", "pattern", "minLength", "maxLength"})

_LABEL = r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?"
_DATE = r"[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])"
_TIME = (r"(?:[01][0-9]|2[0-3]):[0-5][0-9]:(?:[0-5][0-9]|60)(?:\.[0-9]+)?"
         r"(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])")
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|[01]?[0-9]?[0-9])"
_LOCAL = r"[A-Za-z0-9_!#$%&'*+/=?^`{|}~-]+"
_URI_SAFE = r"A-Za-z0-9_.~!$&'()*+,;="
_PCT = r"%[0-9A-Fa-f]{2}"
_SEGMENT = rf"(?:[{_URI_SAFE}:@-]|{_PCT})"
_QUERY = rf"(?:[{_URI_SAFE}:@/?-]|{_PCT})*"
# The unquoted spelling of the string formats xgrammar checks (quoted e-mail local parts left
# out: xgrammar writes their quotes escaped).
STRING_FORMATS = {
    "date": _DATE,
    "time": _TIME,
    "date-time": f"{_DATE}T{_TIME}",
    "email": (rf"{_LOCAL}(?:\.{_LOCAL})*@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
              r"(?:\.[A-Za-z0-9][A-Za-z0-9-]*[A-Za-z0-9])*"),
    "hostname": rf"{_LABEL}(?:\.{_LABEL})*",
    "ipv4": rf"(?:{_OCTET}\.){{3}}{_OCTET}",
    "uuid": r"[0-9A-Fa-f]{8}(?:-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12}",
    "uri": (rf"[A-Za-z][A-Za-z+.-]*:(?://(?:(?:[{_URI_SAFE}:-]|{_PCT})*@)?"
            rf"(?:[{_URI_SAFE}-]|{_PCT})*(?::[0-9]*)?(?:/{_SEGMENT}*)*"
            rf"|/?(?:{_SEGMENT}+(?:/{_SEGMENT}*)*)?)(?:\?{_QUERY})?(?:#{_QUERY})?"),
}


# ---- node helpers ----------------------------------------------------------------------------
def const_strings(values: list[str]) -> Fmt:
    return either([{"type": "const_string", "value": value} for value in values])


def sequence(*elements: Fmt) -> Fmt:
    return {"type": "sequence", "elements": list(elements)}


def either(formats: list[Fmt]) -> Fmt:
    return formats[0] if len(formats) == 1 else {"type": "or", "elements": formats}


def optional(content: Fmt) -> Fmt:
    return {"type": "optional", "content": content}


def tag(begin: str, content: Fmt, end: str | list[str]) -> Fmt:
    return {"type": "tag", "begin": begin, "content": content, "end": end}


# ---- what xgrammar compiles (xgrammar is not a dependency: approximated) ----------------------
def json_compiles(schema: Any) -> bool:
    """Whether xgrammar builds a grammar for `schema`: its refusals are reproduced by
    `json_schema_ebnf` (`SchemaRejected`); a schema outside that converter's subset counts as
    accepted."""
    try:
        text = json.dumps(schema, sort_keys=True)
    except (TypeError, ValueError):
        return False
    if isinstance(schema, bool):
        return True
    return isinstance(schema, dict) and _json_compiles(text)


@lru_cache(maxsize=512)
def _json_compiles(text: str) -> bool:
    from tokenfront.render.json_schema_ebnf import SchemaRejected, schema_to_ebnf

    try:
        schema_to_ebnf(json.loads(text))
    except SchemaRejected:
        return False
    except (ValueError, TypeError, KeyError, RecursionError):
        return True
    return True


def regex_compiles(pattern: str) -> bool:
    """Whether xgrammar reads `pattern` (no lookarounds, back references or inline flags)."""
    if regex.search(r"\(\?[=!<(PiLmsux#]|\\[1-9]|\\[kg]<", pattern):
        return False
    try:
        re.compile(pattern)
    except (re.error, OverflowError, RecursionError):
        return False
    return True


# ---- schemas ---------------------------------------------------------------------------------
def string_choices(schema: Any) -> list[str] | None:
    """The strings of a `const` / `enum` of strings only."""
    if not isinstance(schema, dict):
        return None
    choices = [schema["const"]] if "const" in schema else schema.get("enum")
    if not isinstance(choices, list) or not choices:
        return None
    return choices if all(isinstance(choice, str) for choice in choices) else None


def typed_by_parser(schema: Any) -> bool:
    """Whether the XML parser reads a value with its JSON type from the schema."""
    if schema is True or schema_types(schema):
        return True
    return isinstance(schema, dict) and (not set(schema) - _ANNOTATIONS or string_choices(schema) is not None)


def _value_schema(schema: Any, parameters: dict[str, Any]) -> dict[str, Any]:
    if not isinstance(schema, dict):
        return {}
    if schema.get("nullable"):  # xgrammar ignores `nullable`
        schema = {"anyOf": [schema, {"type": "null"}]}
    defs = {key: parameters[key] for key in ("$defs", "definitions") if key in parameters}
    return {**defs, **schema}


def json_format(schema: Any, closers: list[str]) -> Fmt | None:
    """A JSON value, unless a closer could be JSON syntax or the schema does not compile."""
    if closers and (any(set(closer) <= lit.JSON_OUTSIDE_STRINGS for closer in closers) or not json_compiles(schema)):
        return None
    return {"type": "json_schema", "json_schema": schema, "excludes": closers}


def _writes_any(pattern: str, chars: set[str]) -> bool:
    """Whether a match of `pattern` may contain one of `chars` (True when unsure)."""
    try:
        parsed = sre_parse.parse(pattern)
    except (sre_constants.error, OverflowError, RecursionError):
        return True
    if parsed.state.flags & sre_constants.SRE_FLAG_IGNORECASE:
        return True
    repeats = {sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT}
    repeats |= {sre_constants.POSSESSIVE_REPEAT} if hasattr(sre_constants, "POSSESSIVE_REPEAT") else set()

    def walk(items: Any) -> bool:
        for op, arg in items:
            if op is sre_constants.LITERAL:
                hit = chr(arg) in chars
            elif op is sre_constants.IN:
                hit = any(_class_has(arg, char) for char in chars)
            elif op in repeats:
                hit = bool(arg[1]) and walk(arg[2])
            elif op is sre_constants.SUBPATTERN:
                if arg[1] & sre_constants.SRE_FLAG_IGNORECASE:
                    return True
                hit = walk(arg[3])
            elif op is sre_constants.BRANCH:
                hit = any(walk(branch) for branch in arg[1])
            elif op is sre_constants.AT:
                continue
            else:  # `.` and the like (xgrammar lets `.` match line breaks)
                return True
            if hit and chars:
                return True
        return False

    return walk(parsed)


_CATEGORY_REGEX = {
    sre_constants.CATEGORY_DIGIT: r"\d",
    sre_constants.CATEGORY_NOT_DIGIT: r"\D",
    sre_constants.CATEGORY_SPACE: r"\s",
    sre_constants.CATEGORY_NOT_SPACE: r"\S",
    sre_constants.CATEGORY_WORD: r"\w",
    sre_constants.CATEGORY_NOT_WORD: r"\W",
}


def _class_has(items: list[tuple[Any, Any]], char: str) -> bool:
    negated = bool(items) and items[0][0] is sre_constants.NEGATE
    found = False
    for op, arg in items[int(negated):]:
        if op is sre_constants.LITERAL:
            found |= ord(char) == arg
        elif op is sre_constants.RANGE:
            found |= arg[0] <= ord(char) <= arg[1]
        elif op is sre_constants.CATEGORY and arg in _CATEGORY_REGEX:
            found |= bool(re.fullmatch(_CATEGORY_REGEX[arg], char))
        else:
            return True
    return found != negated


def _string_regex(schema: dict[str, Any], excludes: list[str]) -> Fmt | None:
    """A raw string held to its `format` (which wins over `pattern`) or `pattern`, whole-string,
    length bounds dropped, as xgrammar does."""
    if set(schema) - _ANNOTATIONS - _STRING_REGEX_KEYS or schema_types(schema) != ("string",):
        return None
    pattern = STRING_FORMATS.get(schema["format"]) if "format" in schema else schema["pattern"]
    if (not isinstance(pattern, str) or _writes_any(pattern, {text[0] for text in excludes if text})
            or not regex_compiles(pattern)):
        return None
    return {"type": "regex", "pattern": pattern}


def _raw_text_format(schema: Any, excludes: list[str]) -> Fmt | None:
    """Raw text for a value the parser keeps as written (strings), held to the schema where the
    grammar can do so without changing the value read."""
    if schema is True:
        return ANY_TEXT
    if isinstance(schema, dict) and {"format", "pattern"} & set(schema):
        return _string_regex(schema, excludes)
    if not isinstance(schema, dict) or set(schema) - _ANNOTATIONS - _TEXT_KEYS:
        return None
    branches = [*(schema.get("anyOf") or []), *(schema.get("oneOf") or [])]
    if "enum" in schema or "const" in schema:
        choices = string_choices(schema)
        if choices is None or branches or set(schema_types(schema)) - {"string"}:
            return None
        return const_strings(choices)
    if any(_raw_text_format(branch, excludes) is not ANY_TEXT for branch in branches):
        return None
    return ANY_TEXT


def value_format(schema: Any, parameters: dict[str, Any], json_values: bool, ends: list[str]) -> Fmt | None:
    """JSON for values the parser decodes, raw text for strings."""
    if schema is False:
        return None
    types = schema_types(schema)
    if json_values or (types and "string" not in types):
        return json_format(_value_schema(schema, parameters), ends)
    return _raw_text_format(schema, ends)


# ---- xml-inline arguments --------------------------------------------------------------------
class _Frame:
    """The literal pieces of an `xml-inline` tag pattern: BEGIN key MIDDLE value END, where an
    END may also be a lookahead for the next BEGIN (`follows`)."""

    def __init__(self, begins: list[str], key: str, middles: list[str], ends: list[str], follows: list[str]):
        self.begins, self.key, self.middles, self.ends, self.follows = begins, key, middles, ends, follows


def _frame(tag_pattern: str) -> _Frame | None:
    key_split = lit.split_group(tag_pattern, "key")
    value_split = lit.split_group(key_split[2], "value") if key_split else None
    if not key_split or not value_split:
        return None
    begins, middles = lit.expand(key_split[0]), lit.expand(value_split[0])
    ends = lit.expand(value_split[2], lookahead=True)
    if not begins or not middles or not ends:
        return None
    aheads = [end.split(lit.AHEAD) for end in ends if lit.AHEAD in end]
    plain = [end for end in ends if lit.AHEAD not in end]
    if not plain or (aheads and (len(begins) > 1 or {ahead for _, ahead in aheads} != set(begins))):
        return None
    return _Frame(begins, key_split[1], middles, plain, [before + ahead for before, ahead in aheads])


def xml_arguments(
    content_args: dict[str, Any], parameters: dict[str, Any], *, strict: bool, closers: list[str], sorted_too: bool
) -> Fmt | None:
    if set(content_args) - {"tag_pattern", "value_parser", "merge_duplicates"}:
        return None
    value_parser = content_args.get("value_parser") or {"name": "text"}
    if value_parser.get("name") not in ("text", "json") or (
        value_parser.get("name") == "json" and value_parser.get("args")
    ):
        return None
    frame = _frame(content_args["tag_pattern"])
    if frame is None:
        return None
    properties = parameters.get("properties")
    json_values = value_parser.get("name") == "json"
    typed = properties is None or (
        isinstance(properties, dict) and (json_values or all(map(typed_by_parser, properties.values())))
    )
    if strict and (set(parameters) - _ANNOTATIONS - _OBJECT_KEYS or not typed):
        return None
    required = parameters.get("required") or []
    names: tuple[str, ...] = ()
    if strict and properties is not None:
        if not isinstance(required, list) or not all(isinstance(key, str) for key in required):
            return None
        names = (*properties, *(key for key in required if key not in properties))
    pieces = (
        lit.literal_piece(frame.begins, before=SEPARATOR["pattern"]),
        (f"(?:{frame.key})", lit.suffixes(names), False),
        lit.literal_piece(frame.middles),
        lit.TEXT_PIECE,
        lit.literal_piece(frame.ends),
    )
    if lit.spells_closer(tuple(closers), pieces, repeats=True):
        return None
    return _XmlArguments(frame, content_args, closers).build(
        parameters, properties, required, names, strict=strict, json_values=json_values, sorted_too=sorted_too
    )


@lru_cache(maxsize=4096)
def _parsed_arguments(args_key: str, written: str) -> dict[str, Any] | None:
    """What the `xml-inline` parser (its content args as JSON) reads from `written`."""
    try:
        value = parse_content(written, "xml-inline", json.loads(args_key))
    except (ValueError, TypeError, KeyError, regex.error):
        return None
    return value if isinstance(value, dict) else None


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> Any:
    return regex.compile(pattern)


class _XmlArguments:
    def __init__(self, frame: _Frame, content_args: dict[str, Any], closers: list[str]):
        self.frame = frame
        self.args_key = json.dumps(content_args, sort_keys=True)
        self.closers = closers
        follows = frame.follows
        # Raw text cannot escape a closer, nor (when a value may end where the next opener
        # starts) any value end.
        excludes = closers + follows + frame.ends if follows else closers
        self.text: Fmt = {"type": "any_text", "excludes": excludes} if excludes else ANY_TEXT
        # With lookahead ends, every parameter but the first starts right after the opener
        # the previous value ended on.
        self.starts = [""] if follows else frame.begins

    # -- framing --
    def _tag(self, begin: str, value: Fmt, ends: list[str], last: bool) -> Fmt:
        frame = self.frame
        if frame.follows and not last:
            ends = [end + gap + frame.begins[0] for end in ends for gap in ("", "\n")] + frame.follows
        return tag(begin, value, ends)

    def _separated(self, tags: list[Fmt]) -> Fmt:
        return either(tags) if self.frame.follows else sequence(SEPARATOR, either(tags))

    def _opened(self, body: Fmt, optional_body: bool) -> Fmt:
        """`body`, which starts after its first parameter's opener, with that opener."""
        if not self.frame.follows:
            return body
        body = sequence(SEPARATOR, const_strings(self.frame.begins), body)
        return optional(body) if optional_body else body

    def _any_parameter(self, last: bool) -> Fmt:
        content = sequence({"type": "regex", "pattern": self.frame.key}, const_strings(self.frame.middles), self.text)
        return self._separated([self._tag(start, content, self.frame.ends, last) for start in self.starts])

    def any_parameters(self) -> Fmt:
        more: Fmt = {"type": "star", "content": self._any_parameter(False)}
        if self.frame.follows:
            return self._opened(sequence(more, self._any_parameter(True)), True)
        return more

    def _read_back(self, written: str) -> dict[str, Any] | None:
        if any(closer in written for closer in self.closers):
            return None
        return _parsed_arguments(self.args_key, written)

    def _parameter(self, key: str, value: Fmt, choices: list[str] | None, last: bool) -> Fmt | None:
        frame = self.frame
        if not _compiled(frame.key).fullmatch(key) or any(
            list(self._read_back(b + key + m + "0" + e) or ()) != [key]
            for b in frame.begins for m in frame.middles for e in frame.ends
        ):
            raise ValueError(f"parameter name {key!r} cannot be encoded in tool calls")
        if choices is None:
            return self._separated(
                [self._tag(s + key + m, value, frame.ends, last) for s in self.starts for m in frame.middles]
            )
        # Framing whitespace the parser may trim must not change a choice: group the choices
        # by the ends they read back exactly with.
        tags: list[Fmt] = []
        framed: set[str] = set()
        for b, s in zip(frame.begins, self.starts, strict=False):
            for m in frame.middles:
                by_ends: dict[tuple[str, ...], list[str]] = {}
                for choice in choices:
                    fits = tuple(e for e in frame.ends if self._read_back(b + key + m + choice + e) == {key: choice})
                    by_ends.setdefault(fits, []).append(choice)
                for fits, group in by_ends.items():
                    if fits:
                        tags.append(self._tag(s + key + m, const_strings(group), list(fits), last))
                        framed.update(group)
        if framed != set(choices):
            return None
        return self._separated(tags)

    def build(
        self,
        parameters: dict[str, Any],
        properties: Any,
        required: Any,
        names: tuple[str, ...],
        *,
        strict: bool,
        json_values: bool,
        sorted_too: bool,
    ) -> Fmt | None:
        empty: Fmt = {"type": "const_string", "value": ""}
        if not strict:
            return self.any_parameters()
        if properties is None:
            extra = parameters.get("additionalProperties", True)
            if extra is False:
                return empty
            return self.any_parameters() if extra is True or extra == {} else None
        if parameters.get("additionalProperties", False) is not False:
            return None  # a declared key repeated as an extra one would skip its schema
        if not names:
            return empty
        frame = self.frame
        ends = self.closers + frame.follows + frame.ends
        joined: dict[str, Fmt] = {}
        final: dict[str, Fmt] = {}
        for key in names:
            schema = properties.get(key, True)  # a required name without a schema takes anything
            value = value_format(schema, parameters, json_values, ends)
            if value is None:
                return None
            choices = string_choices(schema) if value["type"] in ("const_string", "or") else None
            value = self.text if value == ANY_TEXT else value
            more = self._parameter(key, value, choices, last=False)
            ending = self._parameter(key, value, choices, last=True)
            if more is None or ending is None:
                return None
            joined[key], final[key] = more, ending
        orders = [names]
        if sorted_too and sorted(names) != list(names):
            orders.append(tuple(sorted(names)))
        body = either([self._ordered(keys, required, joined, final) for keys in orders])
        return self._opened(body, not required)

    def _ordered(self, keys: tuple[str, ...], required: list[str], joined: dict[str, Fmt], final: dict[str, Fmt]) -> Fmt:
        before = [joined[key] if key in required else optional(joined[key]) for key in keys]
        if not self.frame.follows:
            return sequence(*before)

        def ending_in(lo: int, hi: int) -> Fmt:
            """The parameters keys[lo:hi] ending on one of them (halved: O(n log n) nodes)."""
            if hi - lo == 1:
                return final[keys[lo]]
            mid = (lo + hi) // 2
            return either([ending_in(lo, mid), sequence(*before[lo:mid], ending_in(mid, hi))])

        first = max((index for index, key in enumerate(keys) if key in required), default=0)
        return sequence(*before[:first], ending_in(first, len(keys)))
