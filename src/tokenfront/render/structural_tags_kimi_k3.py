"""Kimi K3 structural tag (vLLM's own builder for the XTML channel format).

The answer is a `response` channel (its open marker optional, as non-thinking prompts already
hold it), then the `tools` channel of `call` blocks (optional for "auto"), then an optional
`<|close|>message<|sep|>`. Arguments are `argument` tags keyed by property: strings raw (enum /
const as alternatives, a bounded regex for maxLength), other types JSON against the property.
"""

from __future__ import annotations

from typing import Any

from tokenfront.render.structural_tags import (
    Fmt,
    Tool,
    any_text,
    const,
    json_schema,
    regex,
    sequence,
    tag,
)

OPEN, CLOSE, SEP = "<|open|>", "<|close|>", "<|sep|>"
_END_OF_MSG = "<|end_of_msg|>"
_XTML_TYPES = {
    "string": "string", "integer": "number", "number": "number", "boolean": "boolean",
    "null": "null", "object": "object", "array": "array",
}  # fmt: skip
# One raw string character: anything but the "<|" marker prefix.
_STRING_ATOM = r"(?:[^<]|<[^|])"


def _node(kind: str, content: Fmt) -> Fmt:
    return {"type": kind, "content": content}


def _alternatives(formats: list[Fmt]) -> Fmt:
    return formats[0] if len(formats) == 1 else {"type": "or", "elements": formats}


def _attr(value: Any) -> str:
    return str(value).replace("&", "&amp;").replace('"', "&quot;")


def _bounded_string(prop: dict[str, Any]) -> str | None:
    max_len = prop.get("maxLength")
    if not isinstance(max_len, int) or max_len < 0 or max_len > 4096:
        return None
    min_len = prop.get("minLength", 0)
    if not isinstance(min_len, int) or min_len < 0 or min_len > max_len:
        min_len = 0
    return _STRING_ATOM + f"{{{min_len},{max_len}}}"


def _string_value(prop: dict[str, Any]) -> Fmt:
    values = prop.get("enum")
    if values is None and isinstance(prop.get("const"), str):
        values = [prop["const"]]
    if (
        isinstance(values, list)
        and values
        and len(values) <= 256
        and all(isinstance(v, str) for v in values)
        and not any("<|" in v for v in values)
    ):
        return _alternatives([const(v) for v in values])
    bounded = _bounded_string(prop)
    if bounded is not None:
        return regex(bounded)
    return any_text([CLOSE])


def _argument(key: str, schema: Any, defs: dict[str, Any]) -> Fmt:
    prop = schema if isinstance(schema, dict) else {}
    kind = prop.get("type")
    xtml = _XTML_TYPES.get(kind) if isinstance(kind, str) else None
    if xtml is None:
        return _any_argument()
    begin = f'{OPEN}argument key="{_attr(key)}" type="{xtml}"{SEP}'
    if xtml == "string":
        content = _string_value(prop)
    else:
        embedded = prop
        if defs:
            embedded = dict(prop)
            for name, value in defs.items():
                embedded.setdefault(name, value)
        content = json_schema(embedded)
    return tag(begin, content, f"{CLOSE}argument{SEP}")


def _any_argument() -> Fmt:
    pattern = r"[^<]*" + SEP.replace("|", r"\|")
    return tag(OPEN + "argument ", sequence([regex(pattern), any_text([CLOSE])]), f"{CLOSE}argument{SEP}")


def _arguments(parameters: Any) -> Fmt:
    props = parameters.get("properties") if isinstance(parameters, dict) else None
    if not isinstance(props, dict) or not props:
        return _node("star", _any_argument())
    defs = {k: parameters[k] for k in ("$defs", "definitions") if isinstance(parameters.get(k), dict)}
    inner = _alternatives([_argument(key, prop, defs) for key, prop in props.items()])
    required = parameters.get("required")
    return _node("plus" if isinstance(required, list) and required else "star", inner)


def _call(name: str, parameters: Any) -> Fmt:
    return tag(
        f'{OPEN}call tool="{_attr(name)}" index="',
        sequence([regex(r"[0-9]+"), const(f'"{SEP}'), _arguments(parameters)]),
        f"{CLOSE}call{SEP}",
    )


def kimi_k3(tools: list[Tool], choice: str) -> Fmt:
    response = [
        _node("optional", const(f"{OPEN}response{SEP}")),
        tag("", any_text([OPEN, CLOSE, _END_OF_MSG]), f"{CLOSE}response{SEP}"),
    ]
    trailer = _node("optional", const(f"{CLOSE}message{SEP}"))
    if not tools:
        return sequence([*response, trailer])
    chosen = tools[:1] if choice == "forced" else tools
    channel = tag(
        f"{OPEN}tools{SEP}",
        {"type": "tags_with_separator", "tags": [_call(n, p) for n, p in chosen], "separator": "",
         "at_least_one": True, "stop_after_first": False},
        f"{CLOSE}tools{SEP}",
    )  # fmt: skip
    return sequence([*response, _node("optional", channel) if choice == "auto" else channel, trailer])
