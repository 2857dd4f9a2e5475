"""Reading request bodies: media type, size limit and JSON syntax, checked before any work."""

from __future__ import annotations

import json
import re
from http import HTTPStatus
from typing import Any, TypeVar, overload

import orjson
from pydantic import BaseModel, TypeAdapter, ValidationError
from starlette.requests import Request

from tokenfront import json_codec
from tokenfront.api.errors import body_too_large, http_error, validation_error

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")

MAX_JSON_DEPTH = 64


async def read_json(request: Request, max_bytes: int) -> Any:
    """The request body as parsed JSON, or an `APIError` in vLLM's shape."""
    content_type = request.headers.get("content-type", "")
    check_media_type(content_type)
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > max_bytes:
        raise body_too_large(max_bytes)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > max_bytes:
            raise body_too_large(max_bytes)
        chunks.append(chunk)
    return parse_json_body(b"".join(chunks))


def check_media_type(content_type: str) -> None:
    """vLLM accepts only `application/json` bodies (400 otherwise)."""
    if content_type.split(";", 1)[0].strip().lower() != "application/json":
        raise http_error(
            HTTPStatus.BAD_REQUEST,
            "1 validation error:\n  Unsupported Media Type: Only 'application/json' is allowed",
        )


_MISSING_BODY = (
    "1 validation error:\n  {'type': 'missing', 'loc': 'body', 'msg': 'Field required', 'input': 'None'}"
)


def parse_json_body(raw: bytes) -> Any:
    """A complete body parsed as JSON: empty, `null`, malformed or too deeply nested is vLLM's
    400 (FastAPI reads an empty or `null` body as a missing one)."""
    if not raw.strip():
        raise http_error(HTTPStatus.BAD_REQUEST, _MISSING_BODY)
    try:
        data = json_codec.loads(raw)
    except orjson.JSONDecodeError as exc:
        data = _python_json(raw, exc)
    if data is None:
        raise http_error(HTTPStatus.BAD_REQUEST, _MISSING_BODY)
    if _too_deep(data, raw):
        raise http_error(
            HTTPStatus.BAD_REQUEST, f"JSON nesting deeper than {MAX_JSON_DEPTH} levels"
        )
    return data


def _python_json(raw: bytes, orjson_error: orjson.JSONDecodeError) -> Any:
    """vLLM reads bodies with Python's `json`, which also takes NaN and Infinity (orjson does
    not). Lone surrogates in strings stay refused: no text path could encode them."""
    pos, msg = orjson_error.pos, str(orjson_error.msg)
    try:
        data = json.loads(raw)
        if not _has_lone_surrogate(data):
            return data
    except json.JSONDecodeError as exc:  # vLLM reports Python's position and message
        pos, msg = exc.pos, exc.msg
    except (ValueError, RecursionError):
        pass
    raise http_error(
        HTTPStatus.BAD_REQUEST,
        f"1 validation error:\n  {{'type': 'json_invalid', 'loc': 'body.{pos}', "
        f"'msg': 'JSON decode error', 'input': '<dict of 0 items>', "
        f"'ctx': {{'error': {msg!r}}}}}",
    )


def _has_lone_surrogate(data: Any) -> bool:
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


_SURROGATE = re.compile("[\ud800-\udfff]")


_BRACKETS_AS_PARENS = bytes.maketrans(b"[{]}", b"(())")
_NOT_BRACKET_OR_QUOTE = bytes(b for b in range(256) if b not in b'[]{}"')


def _too_deep(data: Any, raw: bytes | None = None) -> bool:
    """Whether parsed JSON nests deeper than `MAX_JSON_DEPTH` containers."""
    if raw is None:
        return _walk_too_deep(data)
    # Only brackets and quotes matter (square and curly alike, as parentheses); nesting needs
    # one opening bracket per level, so a body with few (most requests, e.g. a long list of
    # token ids) cannot be too deep.
    kept = raw.translate(_BRACKETS_AS_PARENS, _NOT_BRACKET_OR_QUOTE)
    if kept.count(b"(") <= MAX_JSON_DEPTH:
        return False
    # The body parsed, so its brackets outside strings are balanced: each pass that deletes
    # every empty pair peels one level, and the depth is the number of passes.
    # Escapes go first (a run of backslashes pairs up from the left), then every quote
    # delimits a string, so the text outside strings is every other quote-separated part.
    if b"\\" in raw:
        raw = raw.replace(b"\\\\", b"").replace(b'\\"', b"")
        kept = raw.translate(_BRACKETS_AS_PARENS, _NOT_BRACKET_OR_QUOTE)
    # Quotes alternate open/close, so a string without brackets is an adjacent pair. Dropping
    # the adjacent pairs leaves a quote exactly when some string holds a bracket (its opening
    # quote ends an odd run of quotes): without one, what is left is the structure itself.
    brackets = kept.replace(b'""', b"")
    if b'"' in brackets:
        brackets = b"".join(kept.split(b'"')[::2])
    for _ in range(MAX_JSON_DEPTH):
        if not brackets:
            return False
        brackets = brackets.replace(b"()", b"")  # one scan, no rescan: one level per pass
    return bool(brackets)


def _walk_too_deep(data: Any) -> bool:
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            if depth > MAX_JSON_DEPTH:
                return True
            stack.extend((v, depth + 1) for v in value.values() if isinstance(v, (dict, list)))
        elif isinstance(value, list):
            if depth > MAX_JSON_DEPTH:
                return True
            stack.extend((v, depth + 1) for v in value if isinstance(v, (dict, list)))
    return False


@overload
def parse_model(model_cls: type[M], data: Any) -> M: ...
@overload
def parse_model(model_cls: TypeAdapter[T], data: Any) -> T: ...
def parse_model(model_cls: type[M] | TypeAdapter[T], data: Any) -> M | T:
    """Validate parsed JSON into `model_cls` (a model class, or a `TypeAdapter` for unions);
    failures are vLLM's 400 "Bad Request". `from_attributes` as FastAPI validates bodies, so a
    value that is no object reads `model_attributes_type` as in vLLM."""
    try:
        if isinstance(model_cls, TypeAdapter):
            return model_cls.validate_python(data, from_attributes=True)
        return model_cls.model_validate(data, from_attributes=True)
    except ValidationError as exc:
        raise validation_error(exc) from None


def json_response_bytes(payload: Any) -> bytes:
    return json_codec.dumps(payload)
