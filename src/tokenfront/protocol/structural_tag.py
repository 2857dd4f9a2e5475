"""Whether xgrammar 0.2.8 accepts a structural tag, as vLLM validates one before a request runs.

vLLM builds `xgr.Grammar.from_structural_tag(...)` for a `response_format` of type
`structural_tag` and for `structured_outputs.structural_tag`, and answers 400 when that fails.
This module mirrors it without xgrammar: the JSON parser's shape rules for every format kind,
the token resolution (token strings need a tokenizer, which validation has none of), the
analyzer's "unlimited content needs an end" rule and the converter's checks (trigger matching,
embedded JSON schemas, regexes and EBNF grammars). The embedded languages are approximations:
JSON schemas through `schema_to_ebnf` (what it does not model is accepted) plus a dangling
local `$ref` check, regexes and EBNF grammars through the small checkers of `xgrammar_regex` and
`xgrammar_ebnf`.

`structural_tag_error(payload)` takes the payload as vLLM has it: the JSON text of
`structured_outputs.structural_tag`, or the dict dumped from a `response_format`. It returns a
short reason, or None when xgrammar would accept the tag.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from tokenfront.protocol.xgrammar_ebnf import grammar_error
from tokenfront.protocol.xgrammar_regex import regex_error
from tokenfront.render.json_schema_ebnf import SchemaRejected, UnsupportedSchema, schema_to_ebnf

# xgrammar's parser refuses formats nested deeper than this.
MAX_FORMAT_DEPTH = 100
# vLLM's `check_json_nesting` limit for a structural tag (64 schema levels + 16 wrapper levels).
MAX_TAG_JSON_NESTING = 64 + 16
NESTING_MESSAGE = (
    "The JSON schema is nested too deeply: objects and arrays may nest at most 64 levels"
)

_INT32_MAX = 2**31 - 1
_STYLES = frozenset(
    {
        "json",
        "qwen_xml",
        "minimax_xml",
        "minimax_m3_xml",
        "deepseek_xml",
        "glm_xml",
        "cohere_xml",
        "kimi_k3_xml",
        "deepseek_v4_1_xml",
    }
)
# Pydantic's lax booleans (a legacy structure's schema goes through `Union[bool, dict]`).
_LAX_TRUE = frozenset({"1", "on", "t", "true", "y", "yes"})
_LAX_FALSE = frozenset({"0", "off", "f", "false", "n", "no"})

Node = dict[str, Any]


class _Reject(Exception):
    """xgrammar refuses the tag (parse, resolution, analysis or conversion)."""


# The formats read so far in one payload, by (object id, depth): see `_parse_format`.
_MEMO: ContextVar[dict[tuple[int, int], Node | _Reject] | None] = ContextVar(
    "structural_tag_memo", default=None
)


# ---------------------------------------------------------------------------
# entry points
# ---------------------------------------------------------------------------


def structural_tag_error(payload: Any) -> str | None:
    """Why xgrammar (through vLLM) refuses the structural tag `payload`, or None."""
    if isinstance(payload, str):
        if not payload:
            return "empty structural tag"
        if exceeds_tag_nesting(payload):
            return NESTING_MESSAGE
        try:
            payload = json.loads(payload, parse_constant=_no_constant)
        except (ValueError, RecursionError):
            return "structural tag is not JSON"
    try:
        _check_payload(payload)
    except _Reject as exc:
        return str(exc) or "invalid structural tag"
    return None


def is_valid_structural_tag(payload: Any) -> bool:
    return structural_tag_error(payload) is None


def exceeds_tag_nesting(text: str) -> bool:
    """vLLM's `check_json_nesting(text, structural_tag=True)`: objects/arrays nest too deep."""
    try:
        level: list[Any] = [json.loads(text)]
    except RecursionError:
        return True
    except ValueError:
        return False  # malformed JSON is reported as an invalid tag
    for _ in range(MAX_TAG_JSON_NESTING):
        level = [
            child
            for node in level
            if isinstance(node, (dict, list))
            for child in (node.values() if isinstance(node, dict) else node)
            if isinstance(child, (dict, list))
        ]
        if not level:
            return False
    return True


def response_format_error(response_format: dict[str, Any]) -> str | None:
    """vLLM's `validate_structural_tag_response_format` for a `structural_tag` response format:
    the dict must fit the legacy (`structures`/`triggers`) or the `format` model, and its dump
    (unknown keys kept) must be an accepted tag."""
    legacy = _legacy_response_format(response_format)
    if legacy is None and "format" not in response_format:
        return "response_format fits no structural tag model"
    dumped = legacy if legacy is not None else response_format
    try:
        return structural_tag_error(json.dumps(dumped))
    except (TypeError, ValueError):
        return "response_format is not JSON"


def _legacy_response_format(rf: dict[str, Any]) -> dict[str, Any] | None:
    structures, triggers = rf.get("structures"), rf.get("triggers")
    if not isinstance(structures, list) or not isinstance(triggers, list):
        return None
    if not all(isinstance(t, str) for t in triggers):
        return None
    items = []
    for s in structures:
        if not isinstance(s, dict) or not _is_str(s.get("begin")) or not _is_str(s.get("end")):
            return None
        schema = s.get("schema")
        if schema is not None and not isinstance(schema, dict):
            return None
        items.append({**s, "schema": schema})
    return {**rf, "structures": items}


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")  # xgrammar's JSON parser has no NaN/Infinity


# ---------------------------------------------------------------------------
# top level: vLLM's legacy branch, then xgrammar's StructuralTag object
# ---------------------------------------------------------------------------


def _check_payload(payload: Any) -> None:
    if isinstance(payload, dict) and "structures" in payload:
        payload = _from_legacy(payload)
    if not isinstance(payload, dict):
        raise _Reject("Structural tag must be an object")
    if "type" in payload and payload["type"] != "structural_tag":
        raise _Reject('Structural tag\'s type must be a string "structural_tag"')
    if "format" not in payload:
        raise _Reject("Structural tag must have a format field")
    memo = _MEMO.set({})
    try:
        node = _parse_format(payload["format"], 1)
    finally:
        _MEMO.reset(memo)
    _resolve_tokens(node)
    _analyze(node, [])
    _convert(node, [])


def _from_legacy(s_tag: dict[str, Any]) -> dict[str, Any]:
    """vLLM's `StructuralTagItem`s + `from_legacy_structural_tag` (pydantic, lax mode)."""
    structures, triggers = s_tag["structures"], s_tag.get("triggers")
    if isinstance(structures, dict):
        structures = list(structures)
    if isinstance(structures, str):
        structures = list(structures)
    if not isinstance(structures, list) or not isinstance(triggers, list):
        raise _Reject("legacy structures/triggers must be lists")
    tags = []
    for s in structures:
        if not isinstance(s, dict) or not {"begin", "schema", "end"} <= s.keys():
            raise _Reject("legacy structure needs begin, schema and end")
        if not _is_str(s["begin"]) or not _is_str(s["end"]):
            raise _Reject("legacy structure begin/end must be strings")
        schema = _lax_schema(s["schema"])
        content = {"type": "json_schema", "json_schema": schema}
        tags.append({"type": "tag", "begin": s["begin"], "content": content, "end": s["end"]})
    if not all(_is_str(t) for t in triggers):
        raise _Reject("legacy triggers must be strings")
    return {"type": "structural_tag", "format": {"type": "triggered_tags", "triggers": triggers, "tags": tags}}


def _lax_schema(schema: Any) -> Any:
    """`JSONSchemaFormat.json_schema: Union[bool, Dict]` in pydantic's lax mode."""
    if isinstance(schema, (bool, dict)):
        return schema
    if _is_num(schema) and schema in (0, 1):
        return bool(schema)
    if isinstance(schema, str) and schema.lower() in _LAX_TRUE | _LAX_FALSE:
        return schema.lower() in _LAX_TRUE
    raise _Reject("legacy schema must be a JSON schema")


# ---------------------------------------------------------------------------
# parsing: StructuralTagParser (shape rules; a node is the object plus its parsed parts)
# ---------------------------------------------------------------------------


def _parse_format(value: Any, depth: int) -> Node:
    """`_read_format`, once per format object in a payload: a format without a type is tried
    as each kind in turn, which would re-read its sub-formats once per try (exponential in
    the nesting)."""
    memo = _MEMO.get()
    key = (id(value), depth)
    if memo is not None and key in memo:
        known = memo[key]
        if isinstance(known, _Reject):
            raise known
        return known
    try:
        node = _read_format(value, depth)
    except _Reject as exc:
        if memo is not None:
            memo[key] = exc
        raise
    if memo is not None:
        memo[key] = node
    return node


def _read_format(value: Any, depth: int) -> Node:
    if depth > MAX_FORMAT_DEPTH:
        raise _Reject(f"Formats are nested deeper than {MAX_FORMAT_DEPTH} levels")
    if not isinstance(value, dict):
        raise _Reject("Format must be an object")
    if "type" in value:
        kind = value["type"]
        if not isinstance(kind, str):
            raise _Reject("Format's type must be a string")
        parser = _PARSERS.get(kind)
        if parser is None:
            raise _Reject(f"Format type not recognized: {kind}")
        return parser(value, depth)
    # Without a type, xgrammar tries the kinds in this order (tag first).
    for kind in _UNTYPED_ORDER:
        try:
            return _PARSERS[kind](value, depth)
        except _Reject:
            continue
    raise _Reject("Invalid format")


def _node(kind: str, obj: dict[str, Any], **parts: Any) -> Node:
    return {"kind": kind, "obj": obj, **parts}


def _parse_const_string(obj: dict[str, Any], depth: int) -> Node:
    if not _is_str(obj.get("value")):
        raise _Reject("ConstString format must have a value field with a string")
    return _node("const_string", obj)


def _parse_json_schema(obj: dict[str, Any], depth: int, style: str | None = None) -> Node:
    schema = obj.get("json_schema")
    if "json_schema" not in obj or not isinstance(schema, (dict, bool)):
        raise _Reject("JSON schema format must have a json_schema field with a object or boolean")
    if style is None:
        style = obj.get("style") if _is_str(obj.get("style")) else "json"
        if style not in _STYLES:
            raise _Reject(f"unknown style {style!r}")
    if "any_order" in obj and not isinstance(obj["any_order"], bool):
        raise _Reject("any_order must be a boolean")
    cnt = obj.get("max_whitespace_cnt")
    if cnt is not None and not _is_num(cnt):
        raise _Reject("max_whitespace_cnt must be an integer or null")
    excludes = obj.get("excludes", [])
    if not _str_list(excludes, non_empty=True):
        raise _Reject("JSONSchema format's excludes must be an array of non-empty strings")
    return _node("json_schema", obj, style=style, excludes=excludes)


def _parse_qwen_xml_parameter(obj: dict[str, Any], depth: int) -> Node:
    return _parse_json_schema(obj, depth, style="qwen_xml")


def _parse_any_text(obj: dict[str, Any], depth: int) -> Node:
    _budget(obj, "max_tokens")
    _budget(obj, "max_chars")
    if "excludes" not in obj:
        if "type" not in obj:
            raise _Reject("Any text format should not have any fields other than type")
        return _node("any_text", obj, excludes=[])
    excludes = obj["excludes"]
    if not _str_list(excludes):
        raise _Reject("AnyText format's excluded_strs field must be an array of strings")
    return _node("any_text", obj, excludes=excludes)


def _parse_grammar(obj: dict[str, Any], depth: int) -> Node:
    if not _is_str(obj.get("grammar")) or not obj["grammar"]:
        raise _Reject("Grammar format must have a grammar field with a non-empty string")
    return _node("grammar", obj)


def _parse_regex(obj: dict[str, Any], depth: int) -> Node:
    if not _is_str(obj.get("pattern")) or not obj["pattern"]:
        raise _Reject("Regex format must have a pattern field with a non-empty string")
    return _node("regex", obj)


def _parse_elements(obj: dict[str, Any], depth: int, kind: str) -> Node:
    elements = obj.get("elements")
    if not isinstance(elements, list):
        raise _Reject(f"{kind} format must have an elements field with an array")
    parsed = [_parse_format(e, depth + 1) for e in elements]
    if not parsed:
        raise _Reject(f"{kind} format must have at least one element")
    return _node(kind, obj, elements=parsed)


def _parse_sequence(obj: dict[str, Any], depth: int) -> Node:
    return _parse_elements(obj, depth, "sequence")


def _parse_or(obj: dict[str, Any], depth: int) -> Node:
    return _parse_elements(obj, depth, "or")


def _parse_tag_value(value: Any, depth: int) -> Node:
    """A tag inside triggered_tags / tags_with_separator: an object whose type, if any, is tag."""
    if not isinstance(value, dict):
        raise _Reject("Tag format must be an object")
    if "type" in value and value["type"] != "tag":
        raise _Reject('Tag format\'s type must be a string "tag"')
    return _parse_tag(value, depth + 1)


def _parse_tag(obj: dict[str, Any], depth: int) -> Node:
    if "begin" not in obj:
        raise _Reject("Tag format's begin field must be a string")
    begin = obj["begin"]
    if isinstance(begin, dict):
        begin = _parse_token(begin, depth)
    elif not _is_str(begin):
        raise _Reject("Tag format's begin field must be a string")
    if "content" not in obj:
        raise _Reject("Tag format must have a content field")
    content = _parse_format(obj["content"], depth + 1)
    if "end" not in obj:
        raise _Reject("Tag format must have an end field")
    end = obj["end"]
    if _is_str(end):
        end = [end]
    elif isinstance(end, list):
        if not end or not _str_list(end):
            raise _Reject("Tag format's end array must be non-empty strings")
    elif isinstance(end, dict):
        end = _parse_token(end, depth)
    else:
        raise _Reject("Tag format's end field must be a string or array of strings")
    return _node("tag", obj, begin=begin, content=content, end=end)


def _parse_tag_list(obj: dict[str, Any], depth: int) -> list[Node]:
    tags = obj.get("tags")
    if not isinstance(tags, list):
        raise _Reject("format must have a tags field with an array")
    parsed = [_parse_tag_value(t, depth) for t in tags]
    if not parsed:
        raise _Reject("tags must be non-empty")
    return parsed


def _parse_flags(obj: dict[str, Any], *names: str) -> None:
    for name in names:
        if name in obj and not isinstance(obj[name], bool):
            raise _Reject(f"{name} must be a boolean")


def _parse_triggered_tags(obj: dict[str, Any], depth: int) -> Node:
    triggers = obj.get("triggers")
    if not isinstance(triggers, list) or not _str_list(triggers, non_empty=True) or not triggers:
        raise _Reject("Triggered tags format's triggers must be non-empty strings")
    tags = _parse_tag_list(obj, depth)
    excludes = obj.get("excludes", [])
    if not _str_list(excludes, non_empty=True):
        raise _Reject("Triggered tags format's excludes must be non-empty strings")
    _parse_flags(obj, "at_least_one", "stop_after_first")
    return _node("triggered_tags", obj, triggers=triggers, tags=tags, excludes=excludes)


def _parse_tags_with_separator(obj: dict[str, Any], depth: int) -> Node:
    tags = _parse_tag_list(obj, depth)
    if not _is_str(obj.get("separator")):
        raise _Reject("Tags with separator format's separator field must be a string")
    _parse_flags(obj, "at_least_one", "stop_after_first")
    return _node("tags_with_separator", obj, tags=tags)


def _parse_content(kind: str) -> Callable[[dict[str, Any], int], Node]:
    def parse(obj: dict[str, Any], depth: int) -> Node:
        if "content" not in obj:
            raise _Reject(f"{kind} format must have a content field")
        return _node(kind, obj, content=_parse_format(obj["content"], depth + 1))

    return parse


def _parse_repeat(obj: dict[str, Any], depth: int) -> Node:
    raw_lo: Any = obj.get("min")
    raw_hi: Any = obj.get("max")
    if not all(_is_num(v) and math.isfinite(v) and v == int(v) for v in (raw_lo, raw_hi)):
        raise _Reject("Repeat format must have integer min and max fields")
    lo, hi = int(raw_lo), int(raw_hi)
    if (hi >= 0 and lo > hi) or lo < 0 or hi < -1 or lo > _INT32_MAX:
        raise _Reject("Repeat bounds are invalid")
    if hi > _INT32_MAX:
        hi = -1  # xgrammar treats a too large max as unbounded
    if "content" not in obj:
        raise _Reject("Repeat format must have a content field")
    return _node("repeat", obj, max=hi, content=_parse_format(obj["content"], depth + 1))


def _parse_token(obj: dict[str, Any], depth: int) -> Node:
    if "token" not in obj:
        raise _Reject("TokenFormat must have a token field")
    return _node("token", obj, tokens=[_token(obj["token"], "token")])


def _token(value: Any, field: str, *, allow_negative: bool = False) -> int | str:
    if _is_num(value):
        if not _is_int32(value) or (value < 0 and not allow_negative):
            raise _Reject(f"{field} must be a non-negative integer")
        return int(value)
    if _is_str(value) and value:
        return str(value)
    raise _Reject(f"{field} must be an integer or non-empty string")


def _token_list(obj: dict[str, Any], field: str) -> list[int | str]:
    values = obj.get(field, [])
    if not isinstance(values, list):
        raise _Reject(f"{field} must be an array")
    return [_token(v, field) for v in values]


def _parse_exclude_token(obj: dict[str, Any], depth: int) -> Node:
    return _node("exclude_token", obj, tokens=_token_list(obj, "exclude_tokens"))


def _parse_any_tokens(obj: dict[str, Any], depth: int) -> Node:
    tokens = _token_list(obj, "exclude_tokens")
    _budget(obj, "max_tokens")
    return _node("any_tokens", obj, tokens=tokens)


def _parse_token_triggered_tags(obj: dict[str, Any], depth: int) -> Node:
    if "trigger_tokens" not in obj:
        raise _Reject("TokenTriggeredTagsFormat must have a trigger_tokens field")
    triggers = _token_list(obj, "trigger_tokens")
    if not triggers:
        raise _Reject("trigger_tokens must be non-empty")
    tags = _parse_tag_list(obj, depth)
    excludes = _token_list(obj, "exclude_tokens")
    _parse_flags(obj, "at_least_one", "stop_after_first")
    return _node(
        "token_triggered_tags", obj, triggers=triggers, tags=tags, tokens=triggers + excludes
    )


def _rule_pairs(obj: dict[str, Any]) -> list[Any]:
    rules = obj.get("rules")
    if not isinstance(rules, list) or not rules:
        raise _Reject("dispatch format must have a non-empty rules array")
    if not all(isinstance(r, list) and len(r) == 2 for r in rules):
        raise _Reject("dispatch pair must be a 2-element array")
    return rules


def _parse_dispatch(obj: dict[str, Any], depth: int) -> Node:
    rules = _rule_pairs(obj)
    contents = []
    for trigger, content in rules:
        if not _is_str(trigger):
            raise _Reject("TagDispatch pair first element must be a string")
        contents.append(_parse_format(content, depth + 1))
    _parse_flags(obj, "loop")
    excludes = obj.get("excludes", [])
    if not _str_list(excludes, non_empty=True):
        raise _Reject("excludes must contain non-empty strings")
    patterns = [r[0] for r in rules]
    return _node("dispatch", obj, patterns=patterns, contents=contents, excludes=excludes)


def _parse_token_dispatch(obj: dict[str, Any], depth: int) -> Node:
    rules = _rule_pairs(obj)
    contents, triggers = [], []
    for trigger, content in rules:
        if _is_num(trigger):
            if not _is_int32(trigger):
                raise _Reject("Token ID must be an integer")
            triggers.append(int(trigger))
        elif _is_str(trigger):
            triggers.append(trigger)
        else:
            raise _Reject("TokenTagDispatch pair first element must be an integer or string")
        contents.append(_parse_format(content, depth + 1))
    _parse_flags(obj, "loop")
    excludes = _token_list(obj, "exclude_tokens")
    return _node("token_dispatch", obj, contents=contents, tokens=triggers + excludes)


_PARSERS: dict[str, Callable[[dict[str, Any], int], Node]] = {
    "const_string": _parse_const_string,
    "json_schema": _parse_json_schema,
    "any_text": _parse_any_text,
    "sequence": _parse_sequence,
    "or": _parse_or,
    "tag": _parse_tag,
    "triggered_tags": _parse_triggered_tags,
    "tags_with_separator": _parse_tags_with_separator,
    "optional": _parse_content("optional"),
    "plus": _parse_content("plus"),
    "star": _parse_content("star"),
    "repeat": _parse_repeat,
    "qwen_xml_parameter": _parse_qwen_xml_parameter,
    "grammar": _parse_grammar,
    "regex": _parse_regex,
    "token": _parse_token,
    "exclude_token": _parse_exclude_token,
    "any_tokens": _parse_any_tokens,
    "token_triggered_tags": _parse_token_triggered_tags,
    "dispatch": _parse_dispatch,
    "token_dispatch": _parse_token_dispatch,
}
_UNTYPED_ORDER = (
    "tag",
    "const_string",
    "json_schema",
    "any_text",
    "sequence",
    "or",
    "triggered_tags",
    "tags_with_separator",
    "optional",
    "plus",
    "star",
    "repeat",
    "dispatch",
    "token_dispatch",
)


# ---------------------------------------------------------------------------
# token resolution: a token string needs a tokenizer (validation passes none)
# ---------------------------------------------------------------------------


def _children(node: Node) -> list[Node]:
    kids: list[Node] = []
    for key in ("begin", "content", "end"):
        if isinstance(node.get(key), dict):
            kids.append(node[key])
    kids += node.get("elements", []) + node.get("tags", []) + node.get("contents", [])
    return kids


def _resolve_tokens(node: Node) -> None:
    if node["kind"] == "repeat":
        return  # xgrammar's resolver does not descend into a repeat (its tokens stay unresolved)
    if any(isinstance(t, str) for t in node.get("tokens", [])):
        raise _Reject("Token string resolution requires tokenizer_info")
    for child in _children(node):
        _resolve_tokens(child)


# ---------------------------------------------------------------------------
# analysis: an unlimited tag content needs a non-empty end string
# ---------------------------------------------------------------------------

_ALWAYS_UNLIMITED = frozenset(
    {
        "any_text",
        "triggered_tags",
        "token_triggered_tags",
        "dispatch",
        "token_dispatch",
        "any_tokens",
        "tags_with_separator",
        "star",
        "plus",
    }
)


def _is_unlimited(node: Node) -> bool:
    kind = node["kind"]
    if kind in _ALWAYS_UNLIMITED:
        return True
    if kind in ("sequence", "or"):
        return any(_is_unlimited(e) and not _is_excluded(e) for e in node["elements"])
    if kind == "optional":
        return _is_unlimited(node["content"])
    if kind == "repeat":
        return node["max"] == -1 or (node["max"] != 0 and _is_unlimited(node["content"]))
    return False


def _is_excluded(node: Node) -> bool:
    if node["kind"] in ("any_text", "triggered_tags", "dispatch"):
        return bool(node["excludes"])
    if node["kind"] in ("token_triggered_tags", "token_dispatch", "any_tokens"):
        return bool(node["obj"].get("exclude_tokens"))
    return False


def _analyze(node: Node, ends: list[str]) -> None:
    if node["kind"] == "tag":
        end = node["end"]
        if isinstance(end, list):
            content = node["content"]
            if _is_unlimited(content) and not any(end) and not _is_excluded(content):
                raise _Reject("When the content is unlimited, at least one end must be non-empty")
    for child in _children(node):
        _analyze(child, ends)


# ---------------------------------------------------------------------------
# conversion: StructuralTagGrammarConverter's checks (and the embedded languages)
# ---------------------------------------------------------------------------


def _convert(node: Node, tag_ends: list[str]) -> None:
    """`tag_ends` are the end strings of the nearest enclosing tag (xgrammar's detected ends)."""
    check = _CONVERT_CHECKS.get(node["kind"])
    if check is not None:
        check(node, tag_ends)
    if node["kind"] == "tag":
        end = node["end"]
        tag_ends = end if isinstance(end, list) else []
    for child in _children(node):
        if child["kind"] != "token":
            _convert(child, tag_ends)


def _check_json_schema(node: Node, tag_ends: list[str]) -> None:
    schema, style = node["obj"]["json_schema"], node["style"]
    excludes = node["excludes"]
    if style in ("cohere_xml", "minimax_m3_xml") and excludes:
        raise _Reject(f"style {style} takes no excludes")
    if style != "json" and any(s != s.strip() for s in excludes):
        raise _Reject("XML styles reject exclusions starting or ending with whitespace")
    if schema is False:
        raise _Reject("the schema accepts nothing")
    if schema is True:
        return
    if _dangling_ref(schema, schema, 0):
        raise _Reject("a $ref points at nothing")
    try:
        schema_to_ebnf(schema)
    except SchemaRejected as exc:
        raise _Reject(str(exc)) from exc
    except (UnsupportedSchema, RecursionError):
        return


def _dangling_ref(value: Any, root: Any, depth: int) -> bool:
    """Whether a local `$ref` ("#/...") in the schema resolves to nothing."""
    if depth > MAX_TAG_JSON_NESTING or not isinstance(value, (dict, list)):
        return False
    if isinstance(value, dict):
        ref = value.get("$ref")
        if isinstance(ref, str) and ref.startswith("#") and _pointer(root, ref[1:]) is None:
            return True
        children = list(value.values())
    else:
        children = value
    return any(_dangling_ref(child, root, depth + 1) for child in children)


def _pointer(root: Any, pointer: str) -> Any:
    node = root
    for part in pointer.split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def _check_triggered_tags(node: Node, tag_ends: list[str]) -> None:
    for tag in node["tags"]:
        begin = tag["begin"]
        if not isinstance(begin, str):
            raise _Reject("Tags in triggered_tags must have a string begin")
        matches = sum(begin.startswith(t) for t in node["triggers"])
        if matches != 1:
            raise _Reject("A tag must match exactly one trigger")
    used = {t for t in node["triggers"] for tag in node["tags"] if tag["begin"].startswith(t)}
    if not _first_only(node) and len(used) < len(set(node["triggers"])):
        raise _Reject("A trigger matches no tag (an empty dispatch group)")


def _check_token_triggered_tags(node: Node, tag_ends: list[str]) -> None:
    for tag in node["tags"]:
        begin = tag["begin"]
        if isinstance(begin, str):
            raise _Reject("Tags in token_triggered_tags must have a token begin")
        if node["triggers"].count(begin["tokens"][0]) != 1:
            raise _Reject("A tag must match exactly one trigger token")
    used = {tag["begin"]["tokens"][0] for tag in node["tags"]}
    if not _first_only(node) and not set(node["triggers"]) <= used:
        raise _Reject("A trigger token matches no tag (an empty dispatch group)")


def _first_only(node: Node) -> bool:
    """`at_least_one` + `stop_after_first`: xgrammar builds a plain choice, no dispatch groups."""
    obj = node["obj"]
    return obj.get("at_least_one") is True and obj.get("stop_after_first") is True


def _check_regex(node: Node, tag_ends: list[str]) -> None:
    error = regex_error(node["obj"]["pattern"])
    if error:
        raise _Reject(error)


def _check_grammar(node: Node, tag_ends: list[str]) -> None:
    error = grammar_error(node["obj"]["grammar"])
    if error:
        raise _Reject(error)


_CONVERT_CHECKS: dict[str, Callable[[Node, list[str]], None]] = {
    "json_schema": _check_json_schema,
    "triggered_tags": _check_triggered_tags,
    "token_triggered_tags": _check_token_triggered_tags,
    "regex": _check_regex,
    "grammar": _check_grammar,
}


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def _is_num(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_int32(value: Any) -> bool:
    return math.isfinite(value) and value == int(value) and -(2**31) <= value <= _INT32_MAX


def _str_list(value: Any, *, non_empty: bool = False) -> bool:
    return isinstance(value, list) and all(_is_str(v) and (v or not non_empty) for v in value)


def _budget(obj: dict[str, Any], field: str) -> None:
    value = obj.get(field)
    if value is None:
        return
    if not _is_num(value) or value < 0 or value > _INT32_MAX or value != math.floor(value):
        raise _Reject(f"{field} must be a non-negative 32-bit integer or null")
