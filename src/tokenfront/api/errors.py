"""OpenAI-style errors (`{"error": {"message", "type", "param", "code"}}`) in vLLM's shapes."""

from __future__ import annotations

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


def _short(value: Any) -> str:
    text = repr(value) if not isinstance(value, (dict, list)) else f"<{type(value).__name__} of {len(value)} items>"
    return text if len(text) <= _MAX_INPUT_CHARS else text[:_MAX_INPUT_CHARS] + "..."


def validation_error(exc: ValidationError, loc_prefix: tuple[str | int, ...] = ("body",)) -> APIError:
    """A Pydantic error as vLLM's 400 "Bad Request" body, bounded in size."""
    errors = exc.errors(include_url=False)
    shown = []
    first_param: str | None = None
    for err in errors[:_MAX_REPORTED_ERRORS]:
        loc = ".".join(str(p) for p in (*loc_prefix, *err.get("loc", ())))
        first_param = first_param or loc
        shown.append(
            f"{{'type': {err.get('type')!r}, 'loc': {loc!r}, 'msg': {err.get('msg')!r}, "
            f"'input': {_short(err.get('input'))!r}}}"
        )
    count = len(errors)
    head = f"{count} validation error{'s' if count != 1 else ''}:"
    message = "\n  ".join([head, *shown])
    err = http_error(HTTPStatus.BAD_REQUEST, message)
    err.param = first_param
    return err
