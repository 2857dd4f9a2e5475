"""Reading one response-template region body into its field value.

Content parsers: `text` (stripped unless `strip: false`), `int`, `float`, `bool`, `json` (with
the `string_delims` / `unquoted_keys` / `allow_non_json` dialect switches), `xml-inline`
(`tag_pattern` with `key` / `value` groups, optional `value_parser`, `merge_duplicates`) and
`kv-lines`. A `transform` then reshapes the value: strings that are exactly one `{name}` or
`{name.key}` placeholder take the parsed body (`content`) or an opener capture. Tool call
arguments read as text are finally typed by the called tool's JSON schema (`coerce_calls`).

Every failure is a ValueError / KeyError / TypeError: the scanner reports the region as
malformed and carries on.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import regex

ContentParser = Callable[[str, dict[str, Any]], Any]

# Stand-ins for strings pulled out before JSON parsing (control characters a model never writes).
_HOLE_OPEN, _HOLE_CLOSE = "\x01", "\x02"
_PLACEHOLDER = regex.compile(r"\{(\w+(?:\.\w+)*)\}")
_BARE_KEY = regex.compile(r"(?<=[{,])(\w+):")


def _text(body: str, args: dict[str, Any]) -> str:
    return body.strip() if args.get("strip", True) else body


def _int(body: str, args: dict[str, Any]) -> int:
    return int(_text(body, args))


def _float(body: str, args: dict[str, Any]) -> float:
    return float(_text(body, args))


def _bool(body: str, args: dict[str, Any]) -> bool:
    return _text(body, args).lower() in ("true", "1")


def _json(body: str, args: dict[str, Any]) -> Any:
    delims = args.get("string_delims", [])
    if delims and (_HOLE_OPEN in body or _HOLE_CLOSE in body):
        raise ValueError("json: input contains reserved sentinel characters")
    work = body
    pulled: list[str] = []
    for open_d, close_d in delims:
        def hole(match: Any) -> str:
            pulled.append(match.group(1))
            return f"{_HOLE_OPEN}{len(pulled) - 1}{_HOLE_CLOSE}"

        work = regex.sub(regex.escape(open_d) + r"(.*?)" + regex.escape(close_d), hole, work, flags=regex.DOTALL)
    if args.get("unquoted_keys", False):
        work = _BARE_KEY.sub(r'"\1":', work)
    for number, text in enumerate(pulled):
        work = work.replace(f"{_HOLE_OPEN}{number}{_HOLE_CLOSE}", json.dumps(text))
    try:
        return json.loads(work)
    except json.JSONDecodeError as exc:
        if args.get("allow_non_json"):
            return _text(body, args)
        raise ValueError(f"json: region is not JSON: {exc}") from exc


def _value(raw: Any, value_parser: Any) -> Any:
    if value_parser is None:
        return raw
    return parse_content(raw, value_parser.get("name", "text"), value_parser.get("args", {}))


def _xml_inline(body: str, args: dict[str, Any]) -> dict[str, Any]:
    tag_pattern = args.get("tag_pattern")
    if tag_pattern is None:
        raise ValueError("xml-inline: 'tag_pattern' content_arg is required")
    merge = args.get("merge_duplicates", False)
    out: dict[str, Any] = {}
    for match in regex.finditer(tag_pattern, body, flags=regex.DOTALL):
        groups = match.groupdict()
        key = groups.get("key")
        if key is None:
            raise ValueError("xml-inline: tag_pattern must have a named group 'key'")
        value = _value(groups.get("value", ""), args.get("value_parser"))
        if key in out and merge:
            if not isinstance(out[key], list):
                out[key] = [out[key]]
            out[key].append(value)
        else:
            out[key] = value
    return out


def _kv_lines(body: str, args: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    separator = args.get("kv_sep", ":")
    for line in body.split(args.get("line_sep", "\n")):
        line = _text(line, args)
        if not line or separator not in line:
            continue
        key, value = line.split(separator, 1)
        out[_text(key, args)] = _value(_text(value, args), args.get("value_parser"))
    return out


CONTENT_PARSERS: dict[str, ContentParser] = {
    "text": _text,
    "int": _int,
    "float": _float,
    "bool": _bool,
    "json": _json,
    "xml-inline": _xml_inline,
    "kv-lines": _kv_lines,
}


def parse_content(body: Any, name: str, args: dict[str, Any]) -> Any:
    return CONTENT_PARSERS[name](body, args)


def check_transform(scope: str, transform: Any) -> None:
    """Reject transform strings that mix a placeholder with other text."""
    if isinstance(transform, dict):
        for item in transform.values():
            check_transform(scope, item)
    elif isinstance(transform, list):
        for item in transform:
            check_transform(scope, item)
    elif isinstance(transform, str):
        if _PLACEHOLDER.search(transform) and not _PLACEHOLDER.fullmatch(transform):
            raise ValueError(f"{scope}: transform string {transform!r} mixes a placeholder with text")


def _fill(transform: Any, scope: dict[str, Any]) -> Any:
    if isinstance(transform, dict):
        return {key: _fill(item, scope) for key, item in transform.items()}
    if isinstance(transform, list):
        return [_fill(item, scope) for item in transform]
    if not isinstance(transform, str):
        return transform
    whole = _PLACEHOLDER.fullmatch(transform)
    if whole is None:
        return transform
    root, *keys = whole.group(1).split(".")
    if root not in scope:
        raise KeyError(f"transform placeholder {{{whole.group(1)}}} is not defined")
    value = scope[root]
    for key in keys:
        if not isinstance(value, dict):
            raise ValueError(f"transform placeholder {{{whole.group(1)}}} cannot index into {type(value).__name__}")
        if key not in value:
            raise ValueError(f"transform placeholder {{{whole.group(1)}}} is missing key {key!r}")
        value = value[key]
    return value


def field_value(body: str, field: Any, captures: dict[str, str]) -> Any:
    """The value of one closed region of `field` (a `rtemplate_spec.Field`)."""
    value = parse_content(body, field.content, field.content_args)
    if field.transform is None:
        return value
    if not field.transform_each:
        return _fill(field.transform, {**captures, "content": value})
    if not isinstance(value, list):
        raise ValueError(f"Field '{field.name}': transform_each needs a list, got {type(value).__name__}")
    out = []
    for item in value:
        if not isinstance(item, dict):
            raise ValueError(f"Field '{field.name}': transform_each needs dict items")
        out.append(_fill(field.transform, {**captures, **item}))
    return out


def opener_call_name(field: Any, captures: dict[str, str]) -> str | None:
    """The function name a tool field's transform fixes from the opener alone (a literal or an
    opener capture), before the region body exists; None when it needs the body."""
    transform = None if field.transform_each else field.transform
    function = transform.get("function") if isinstance(transform, dict) else None
    if not isinstance(function, dict):
        return None
    try:
        name = _fill(function.get("name"), captures)
    except (KeyError, ValueError):
        return None
    return name if isinstance(name, str) and name else None


# ---- schema typing of tool-call arguments ----------------------------------------------------
def schema_types(schema: Any) -> tuple[str, ...]:
    """The JSON types a schema allows (`type`, type lists, `anyOf` / `oneOf`, `nullable`)."""
    if not isinstance(schema, dict):
        return ()
    declared = schema.get("type")
    types = [declared] if isinstance(declared, str) else []
    if isinstance(declared, list):
        types.extend(item for item in declared if isinstance(item, str))
    for union in ("anyOf", "oneOf"):
        for choice in schema.get(union) or []:
            types.extend(schema_types(choice))
    if schema.get("nullable") and "null" not in types:
        types.append("null")
    return tuple(types)


def _as_type(raw: str, name: str) -> tuple[bool, Any]:
    """(True, value) when `raw` reads as JSON type `name`."""
    if name == "integer":
        try:
            return True, int(raw)
        except ValueError:
            number = float(raw)
            return (True, int(number)) if number.is_integer() else (False, None)
    if name == "number":
        number = float(raw)
        if number != number or number in (float("inf"), float("-inf")):
            return False, None
        return True, (int(number) if number.is_integer() and "." not in raw else number)
    if name == "boolean" and raw.strip().lower() in ("true", "1", "false", "0"):
        return True, raw.strip().lower() in ("true", "1")
    if name == "null" and raw.strip() in ("null", "None"):
        return True, None
    if name in ("object", "array"):
        decoded = json.loads(raw)
        if isinstance(decoded, dict if name == "object" else list):
            return True, decoded
    return False, None


def coerce(raw: str, types: tuple[str, ...]) -> Any:
    """`raw` as the first of `types` it reads as, else unchanged."""
    for name in types:
        try:
            ok, value = _as_type(raw, name)
        except ValueError:
            continue
        if ok:
            return value
    return raw


def tool_properties(tools: list[dict[str, Any]] | None) -> dict[str, dict[str, Any]]:
    """Function name -> its parameter `properties` (empty when it declares none)."""
    out: dict[str, dict[str, Any]] = {}
    for tool in tools or ():
        function = tool.get("function", tool) if isinstance(tool, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            parameters = function.get("parameters")
            properties = parameters.get("properties") if isinstance(parameters, dict) else None
            out[function["name"]] = properties if isinstance(properties, dict) else {}
    return out


def coerce_calls(value: Any, properties_by_name: dict[str, dict[str, Any]]) -> Any:
    """Type the string arguments of tool-call values by their tool's schema (in place)."""
    if isinstance(value, list):
        return [coerce_calls(item, properties_by_name) for item in value]
    function = value.get("function") if isinstance(value, dict) else None
    if not isinstance(function, dict):
        return value
    name, arguments = function.get("name"), function.get("arguments")
    if not isinstance(name, str) or not isinstance(arguments, dict):
        return value
    properties = properties_by_name.get(name)
    if not properties:
        return value
    for key, argument in arguments.items():
        types = schema_types(properties[key]) if key in properties else ()
        if not types:
            continue
        if isinstance(argument, str):
            arguments[key] = coerce(argument, types)
        elif isinstance(argument, list) and "array" not in types:
            arguments[key] = [coerce(item, types) if isinstance(item, str) else item for item in argument]
    return value
