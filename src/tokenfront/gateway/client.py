"""The one shared HTTP client to the engine's token-in/token-out API, and its error mapping.

Engine failures become OpenAI error bodies: an unreachable engine is 503, a timeout 504,
a broken answer 502; the engine's own 4xx (a request it refuses) keeps its status and
message, its 5xx become 502 (503/504 kept).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from http import HTTPStatus
from typing import Any

import httpx
import orjson

from tokenfront import json_codec
from tokenfront.api.errors import APIError
from tokenfront.gateway.sse import MalformedEvent, read_events

logger = logging.getLogger(__name__)

GENERATE_PATH = "/inference/v1/generate"
ABORT_PATH = "/inference/v1/abort_requests"
ENGINE_ID_PREFIX = "generate-tokens-"
# Longest engine error text echoed to the client.
_MAX_ENGINE_MESSAGE = 2000
# Engine statuses passed through as they are; any other is a 502.
_PASS_THROUGH = frozenset({400, 413, 422, 429, 503, 504})
_TYPES = {
    400: "BadRequestError",
    413: "Request Entity Too Large",
    422: "BadRequestError",
    429: "RateLimitError",
    502: "BadGatewayError",
    503: "ServiceUnavailableError",
    504: "GatewayTimeoutError",
}


def gateway_error(status: int, message: str) -> APIError:
    err_type = _TYPES.get(status, HTTPStatus(status).phrase)
    return APIError(message, status=status, err_type=err_type)


def engine_request_id(rendered_id: str) -> str:
    """The id vLLM's generate server gives a request sent with body `request_id` (no header)."""
    return ENGINE_ID_PREFIX + rendered_id


def _engine_message(content: bytes) -> str:
    try:
        data = orjson.loads(content)
    except orjson.JSONDecodeError:
        text = content.decode("utf-8", "replace").strip()
    else:
        text = ""
        if isinstance(data, dict):
            err = data.get("error")
            if isinstance(err, dict):
                text = str(err.get("message", ""))
            elif data.get("detail") is not None:
                text = str(data["detail"])
            elif data.get("message") is not None:
                text = str(data["message"])
        if not text:
            text = content.decode("utf-8", "replace").strip()
    return text[:_MAX_ENGINE_MESSAGE]


def status_error(status: int, content: bytes) -> APIError:
    """The client's error for an engine answer with a non-200 status."""
    message = _engine_message(content)
    if status in _PASS_THROUGH:
        return gateway_error(status, message or HTTPStatus(status).phrase)
    return gateway_error(
        HTTPStatus.BAD_GATEWAY, f"engine answered {status}: {message or 'no details'}"
    )


def transport_error(exc: Exception) -> APIError:
    """The client's error for a failed exchange with the engine (no usable answer)."""
    if isinstance(exc, httpx.PoolTimeout):
        return gateway_error(
            HTTPStatus.SERVICE_UNAVAILABLE,
            "too many concurrent engine requests (--engine-max-connections); try again",
        )
    if isinstance(exc, httpx.ConnectTimeout | httpx.ConnectError):
        return gateway_error(HTTPStatus.SERVICE_UNAVAILABLE, f"engine unavailable: {exc}")
    if isinstance(exc, httpx.TimeoutException):
        return gateway_error(
            HTTPStatus.GATEWAY_TIMEOUT, "engine did not answer in time (--engine-timeout)"
        )
    if isinstance(exc, MalformedEvent | ValueError):
        return gateway_error(HTTPStatus.BAD_GATEWAY, f"invalid engine response: {exc}")
    return gateway_error(HTTPStatus.BAD_GATEWAY, f"engine connection failed: {exc}")


class EngineClient:
    """A keep-alive connection pool to one engine, shared by every request of the app."""

    def __init__(
        self,
        base_url: str,
        *,
        timeout: float,
        max_connections: int,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        limits = httpx.Limits(
            max_connections=max_connections, max_keepalive_connections=max_connections
        )
        self.base_url = base_url.rstrip("/")
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0), pool=min(timeout, 30.0)),
            limits=limits,
            transport=transport,
        )
        self._background: set[asyncio.Task[None]] = set()

    async def aclose(self) -> None:
        if self._background:
            await asyncio.wait(set(self._background), timeout=5)
        await self._http.aclose()

    async def generate(self, body: dict[str, Any]) -> dict[str, Any]:
        """A non-streaming generate call's JSON answer."""
        try:
            resp = await self._http.post(GENERATE_PATH, content=json_codec.dumps(body), headers=_JSON)
        except httpx.HTTPError as exc:
            raise transport_error(exc) from None
        if resp.status_code != HTTPStatus.OK:
            raise status_error(resp.status_code, resp.content)
        try:
            data = orjson.loads(resp.content)
        except orjson.JSONDecodeError as exc:
            raise transport_error(ValueError(f"not JSON: {exc}")) from None
        if not isinstance(data, dict):
            raise transport_error(ValueError("not a JSON object"))
        return data

    @contextlib.asynccontextmanager
    async def stream(self, body: dict[str, Any]) -> AsyncIterator[AsyncIterator[dict[str, Any]]]:
        """Open a streaming generate call; a refused or failed start raises `APIError`.

        Yields the stream's events (JSON objects) up to `data: [DONE]`; reading them may
        raise `httpx.HTTPError` or `MalformedEvent` (see `transport_error`).
        """
        request = self._http.build_request(
            "POST", GENERATE_PATH, content=json_codec.dumps(body), headers=_SSE
        )
        try:
            resp = await self._http.send(request, stream=True)
        except httpx.HTTPError as exc:
            raise transport_error(exc) from None
        try:
            if resp.status_code != HTTPStatus.OK:
                raise status_error(resp.status_code, await _read_error(resp))
            yield read_events(resp.aiter_lines())
        finally:
            await resp.aclose()

    async def abort(self, request_ids: list[str]) -> None:
        """Ask the engine to stop `request_ids` (errors are logged, never raised)."""
        try:
            resp = await self._http.post(ABORT_PATH, json={"request_ids": request_ids})
            if resp.status_code != HTTPStatus.OK:
                logger.warning("engine refused abort of %s: %s", request_ids, resp.status_code)
        except httpx.HTTPError as exc:
            logger.warning("abort of %s failed: %s", request_ids, exc)

    def abort_soon(self, request_ids: list[str]) -> None:
        """Send an abort from a task of its own (usable while the caller is cancelled)."""
        task = asyncio.get_running_loop().create_task(self.abort(request_ids))
        self._background.add(task)
        task.add_done_callback(self._background.discard)


_JSON = {"Content-Type": "application/json"}
_SSE = {"Content-Type": "application/json", "Accept": "text/event-stream"}


async def _read_error(resp: httpx.Response) -> bytes:
    try:
        return await resp.aread()
    except httpx.HTTPError:
        return b""
