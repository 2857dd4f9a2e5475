"""The render and derender POST routes served straight from ASGI.

They carry nearly all the traffic, and for a small derender FastAPI's routing, dependency
solving and middleware stack cost as much CPU as the derender itself. `HotPaths` sits behind
the request guard (limits, API key, metrics, access log) and answers these four routes with
the same handler functions the FastAPI routes use; everything else, and any request that
needs CORS handling, goes on to the FastAPI app (which still documents these routes).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import orjson
from starlette.types import ASGIApp, Receive, Scope, Send

from tokenfront import json_codec
from tokenfront.api.body import check_media_type, parse_json_body
from tokenfront.api.concurrency import run_cpu_sized
from tokenfront.api.errors import APIError
from tokenfront.api.middleware import route_path
from tokenfront.api.routes.derender import derender_chat_body, derender_completion_body
from tokenfront.api.routes.render import render_chat_body, render_completion_body
from tokenfront.api.state import AppState

BodyHandler = Callable[[Any, AppState, Any, "str | None"], Any]


class HotRoute(NamedTuple):
    """Stands in for the matched route in `scope["route"]` (metrics label the endpoint by it)."""

    path: str
    handler: BodyHandler


HOT_ROUTES = {
    route.path: route
    for route in (
        HotRoute("/v1/chat/completions/render", render_chat_body),
        HotRoute("/v1/completions/render", render_completion_body),
        HotRoute("/v1/chat/completions/derender", derender_chat_body),
        HotRoute("/v1/completions/derender", derender_completion_body),
    )
}
_JSON_HEADERS = [(b"content-type", b"application/json")]


class HotPaths:
    def __init__(self, app: ASGIApp, fastapi_app: Any) -> None:
        self.app = app
        self.fastapi_app = fastapi_app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        route = (
            HOT_ROUTES.get(route_path(scope))
            if scope["type"] == "http" and scope.get("method") == "POST"
            else None
        )
        if route is None or _has_header(scope, b"origin"):
            await self.app(scope, receive, send)
            return
        scope["route"] = route
        state: AppState = self.fastapi_app.state.tokenfront
        try:
            content_type = _header(scope, b"content-type") or ""
            check_media_type(content_type)
            raw = await _read_body(receive)
            data = parse_json_body(raw)
            result = await run_cpu_sized(
                len(raw),
                route.handler,
                self.fastapi_app,
                state,
                data,
                _header(scope, b"x-request-id"),
            )
            body = json_codec.dumps(result, non_str_keys=True)
            status = 200
        except APIError as exc:
            body = orjson.dumps(exc.body())
            status = exc.status
        headers = [(b"content-length", str(len(body)).encode()), *_JSON_HEADERS]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


async def _read_body(receive: Receive) -> bytes:
    """The whole body (the request guard in front stops it at the size limit)."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key.lower() == name:
            return value.decode("latin-1")  # type: ignore[no-any-return]
    return None


def _has_header(scope: Scope, name: bytes) -> bool:
    return any(key.lower() == name for key, _ in scope["headers"])
