"""The request guard: one pure-ASGI layer in front of every route.

In order, for each HTTP request it
1. bounds the request headers (431) and, when `--api-key` is set, checks
   `Authorization: Bearer KEY` in constant time on every path but `/health` / `/ping` (401);
2. refuses a declared body larger than `--max-request-bytes` before reading it (413) and stops
   an undeclared (chunked) body as soon as it passes the limit;
3. turns any exception that escapes the app into a bare 500 error body (the traceback goes to
   the log only), and
4. records Prometheus metrics and one structured access-log line.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import random
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tokenfront import metrics
from tokenfront.api.errors import (
    APIError,
    body_too_large,
    headers_too_large,
    internal_error,
    too_many_headers,
    unauthorized,
)
from tokenfront.config import ServerSettings

logger = logging.getLogger("tokenfront.api")
access_logger = logging.getLogger("tokenfront.access")

OPEN_PATHS = frozenset({"/health", "/ping"})
REQUEST_ID_HEADER = b"x-request-id"


class RequestGuard:
    def __init__(self, app: ASGIApp, settings: ServerSettings) -> None:
        self.app = app
        self.settings = settings
        self.key_digests = [_digest(k) for k in settings.api_key if k]
        self.access_log = not settings.disable_uvicorn_access_log
        self.quiet_paths = frozenset(settings.access_log_excluded_paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        headers: list[tuple[bytes, bytes]] = scope.get("headers", [])
        request_id = _header(headers, REQUEST_ID_HEADER) or f"{random.getrandbits(128):032x}"
        extra_headers = (
            [(REQUEST_ID_HEADER, request_id.encode("latin-1"))]
            if self.settings.enable_request_id_headers
            else []
        )
        path = route_path(scope)
        limit = self.settings.max_request_bytes
        exchange = _Exchange(scope, receive, send, limit, extra_headers)
        metrics.IN_FLIGHT.inc()
        try:
            refusal = self._refusal(scope, headers, path)
            if refusal is not None:
                exchange.refused = True
                await exchange.answer(refusal)
            else:
                await self.app(scope, exchange.receive, exchange.send)
        except APIError as exc:  # e.g. the body limit hit outside a route's error handling
            await exchange.answer(exc)
        except Exception:
            logger.exception(
                "unhandled error", extra={"fields": {"request_id": request_id, "path": path}}
            )
            await exchange.answer(internal_error())
        finally:
            metrics.IN_FLIGHT.dec()
            if exchange.body_overflow:
                metrics.rejected("body_too_large")
            endpoint = "refused" if exchange.refused else _endpoint_label(scope)
            self._record(scope, endpoint, path, exchange.status or 500, started, request_id)

    def _refusal(
        self, scope: Scope, headers: list[tuple[bytes, bytes]], path: str
    ) -> APIError | None:
        limit = self.settings.max_header_bytes
        if sum(len(k) + len(v) for k, v in headers) > limit:
            metrics.rejected("headers")
            return headers_too_large(limit)
        if len(headers) > self.settings.max_header_count:
            metrics.rejected("headers")
            return too_many_headers(self.settings.max_header_count)
        if self.key_digests and path not in OPEN_PATHS and scope.get("method") != "OPTIONS":
            if not self._authorized(_header(headers, b"authorization")):
                metrics.rejected("auth")
                return unauthorized()
        declared = _header(headers, b"content-length")
        if declared and declared.isdigit() and int(declared) > self.settings.max_request_bytes:
            metrics.rejected("body_too_large")
            return body_too_large(self.settings.max_request_bytes)
        return None

    def _authorized(self, authorization: str | None) -> bool:
        scheme, _, token = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not token:
            return False
        given = _digest(token.strip())
        match = False
        for digest in self.key_digests:  # every key is compared, whatever matched before
            match |= hmac.compare_digest(given, digest)
        return match

    def _record(
        self, scope: Scope, endpoint: str, path: str, status: int, started: float, request_id: str
    ) -> None:
        elapsed = time.perf_counter() - started
        method = scope.get("method", "")
        metrics.observe_request(method, endpoint, status, elapsed)
        if self.access_log and path not in self.quiet_paths:
            client = scope.get("client")
            access_logger.info(
                "request",
                extra={
                    "fields": {
                        "method": method,
                        "path": path,
                        "status": status,
                        "duration_ms": round(elapsed * 1000, 2),
                        "request_id": request_id,
                        "client": f"{client[0]}:{client[1]}" if client else "",
                    }
                },
            )


class _Exchange:
    """One request's view for the guard: its status, and the body limit on `receive`.

    Once the body passes the limit, `receive` raises a 413 `APIError` and whatever the app then
    tries to answer (a route may turn a body error into a 400) is replaced by that 413.
    """

    def __init__(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        limit: int,
        extra_headers: list[tuple[bytes, bytes]],
    ) -> None:
        self.scope = scope
        self._receive = receive
        self._send = send
        self.limit = limit
        self.extra_headers = extra_headers
        self.seen = 0
        self.body_overflow = False
        self.status = 0
        self.refused = False
        self.answered = False

    async def receive(self) -> Message:
        message = await self._receive()
        if message["type"] == "http.request":
            self.seen += len(message.get("body", b""))
            if self.seen > self.limit:
                self.body_overflow = True
                raise body_too_large(self.limit)
        return message

    async def send(self, message: Message) -> None:
        if self.answered:
            return  # the guard's own answer went out; drop the app's
        if self.body_overflow:
            await self.answer(body_too_large(self.limit))
            return
        await self._send_out(message)

    async def answer(self, error: APIError) -> None:
        """Send `error` unless a response has started (then the connection just closes)."""
        if self.status:
            return
        await error.response()(self.scope, self._receive, self._send_out)
        self.answered = True

    async def _send_out(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            if self.extra_headers:
                headers = [*message.get("headers", []), *self.extra_headers]
                message = {**message, "headers": headers}
        await self._send(message)


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode("utf-8")).digest()


def _header(headers: list[tuple[bytes, bytes]], name: bytes) -> str | None:
    for key, value in headers:
        if key.lower() == name:
            return value.decode("latin-1")
    return None


def route_path(scope: Scope) -> str:
    path: str = scope.get("path", "")
    root = scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(root) else path


def _endpoint_label(scope: Scope) -> str:
    """The matched route template (bounded label values); "unmatched" for unknown paths."""
    route = scope.get("route")
    template = getattr(route, "path", None)
    return template if isinstance(template, str) else "unmatched"
