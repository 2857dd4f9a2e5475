"""OpenAI-style errors (`{"error": {"message", "type", "param", "code"}}`) in vLLM's shapes."""

from __future__ import annotations

from collections.abc import Sequence
from http import HTTPStatus
from typing import Any

import orjson
from pydantic import ValidationError
from starlette.responses import Response

# vLLM reports at most this many validation errors and echoes this much input.
_MAX_REPORTED_ERRORS = 10
_MAX_INPUT_CHARS = 200


class APIError(Exception):
    """An error answered to the client as an OpenAI error body.

    `err_type` follows vLLM: handler errors are "BadRequestError" / "NotFoundError",
    request-validation errors use the HTTP phrase ("Bad Request").
    """

    def __init__(
        self,
        message: str,
        *,
        status: int = HTTPStatus.BAD_REQUEST,
        err_type: str = "BadRequestError",
        param: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = int(status)
        self.err_type = err_type
        self.param = param

    def body(self) -> dict[str, Any]:
        return {
            "error": {
                "message": self.message,
                "type": self.err_type,
                "param": self.param,
                "code": self.status,
            }
        }

    def response(self) -> Response:
        return Response(
            orjson.dumps(self.body()), status_code=self.status, media_type="application/json"
        )


def bad_request(message: str, param: str | None = None) -> APIError:
    return APIError(message, param=param)


def model_not_found(name: str, served: list[str]) -> APIError:
    return APIError(
        f"The model `{name}` does not exist. Valid aliases: {', '.join(served)}.",
        status=HTTPStatus.NOT_FOUND,
        err_type="NotFoundError",
        param="model",
    )


def http_error(status: int, message: str) -> APIError:
    """An error raised by the HTTP layer itself (media type, size, JSON syntax)."""
    return APIError(message, status=status, err_type=HTTPStatus(status).phrase)


def unauthorized() -> APIError:
    return http_error(HTTPStatus.UNAUTHORIZED, "Invalid or missing API key.")


def internal_error() -> APIError:
    """The body of an unexpected failure: no exception text, no traceback."""
    return APIError("Internal server error", status=500, err_type="InternalServerError")


def body_too_large(max_bytes: int) -> APIError:
    return http_error(
        HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
        f"Request body exceeds the server limit of {max_bytes} bytes (--max-request-bytes).",
    )


def headers_too_large(max_bytes: int) -> APIError:
    return http_error(
        HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE,
        f"Request headers exceed the server limit of {max_bytes} bytes (--max-header-bytes).",
    )


def too_many_headers(max_count: int) -> APIError:
    return http_error(
        HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE,
        f"Request has more than {max_count} headers (--h11-max-header-count).",
    )


# Pydantic's internal schema-kind segments in an error `loc`, dropped from `param`.
_INTERNAL_LOC = frozenset(
    {
        "function-wrap", "function-after", "function-before", "function-plain",
        "json-or-python", "lax-or-strict", "chain", "default", "nullable", "tagged-union",
        "union", "call", "arguments", "is-instance", "is-subclass", "callable", "str", "int",
        "float", "bool", "bytes", "bytearray", "list", "tuple", "dict", "set", "frozenset",
        "complex", "none", "nonetype",
    }
)  # fmt: skip
_MAX_ERROR_CHARS = 1000


def clean_loc(loc: tuple[Any, ...]) -> str:
    """A dotted `param` path without Pydantic's wrapper and union-branch segments (a union
    member that is an `OpenAIModel` goes too: vLLM's wraps its validation in a function)."""
    from tokenfront.protocol.base import openai_model_names  # protocol imports this module

    members = openai_model_names()
    parts = [str(p) for p in loc if not _internal_segment(str(p)) and p not in members]
    return ".".join(parts) if parts else ".".join(str(p) for p in loc)


def _internal_segment(segment: str) -> bool:
    return any(c in segment for c in "[]{}()") or segment.lower() in _INTERNAL_LOC


def _short(value: Any) -> Any:
    if isinstance(value, str):
        return (
            value if len(value) <= _MAX_INPUT_CHARS else value[:_MAX_INPUT_CHARS] + "...[truncated]"
        )
    if isinstance(value, (bytes, bytearray)):
        return f"<{type(value).__name__} of {len(value)} bytes>"
    if isinstance(value, (list, tuple, set, frozenset, dict)):
        return f"<{type(value).__name__} of {len(value)} items>"
    try:
        text = str(value)
    except Exception:  # e.g. an int too long to print
        return f"<{type(value).__name__}>"
    return text if len(text) <= _MAX_INPUT_CHARS else text[:_MAX_INPUT_CHARS] + "...[truncated]"


def _format_error(err: dict[str, Any]) -> str:
    shown = dict(err)
    shown.pop("url", None)
    if "input" in shown:
        shown["input"] = _short(shown["input"])
    if isinstance(shown.get("loc"), (tuple, list)):
        shown["loc"] = clean_loc(tuple(shown["loc"]))
    text = str(shown)
    return text if len(text) <= _MAX_ERROR_CHARS else text[:_MAX_ERROR_CHARS] + "...[truncated]"


def validation_errors(errors: Sequence[Any], loc_prefix: tuple[str | int, ...] = ()) -> APIError:
    """Pydantic-style error dicts as vLLM's 400 "Bad Request" body, bounded in size."""
    items = [
        {**e, "loc": (*loc_prefix, *e.get("loc", ()))} if isinstance(e, dict) else {"msg": str(e)}
        for e in errors
    ]
    count = len(items)
    if not count:
        return http_error(HTTPStatus.BAD_REQUEST, "Validation error")
    label = "error" if count == 1 else "errors"
    shown = items[:_MAX_REPORTED_ERRORS]
    lines = [f"{count} validation {label}:", *(f"  {_format_error(e)}" for e in shown)]
    if count > len(shown):
        lines.append(f"  ...and {count - len(shown)} more {label}")
    err = http_error(HTTPStatus.BAD_REQUEST, "\n".join(lines))
    first_loc = items[0].get("loc")
    err.param = clean_loc(tuple(first_loc)) if first_loc else None
    return err


def validation_error(
    exc: ValidationError, loc_prefix: tuple[str | int, ...] = ("body",)
) -> APIError:
    """A Pydantic `ValidationError` as vLLM's 400 "Bad Request" body."""
    return validation_errors(exc.errors(include_url=False), loc_prefix)
