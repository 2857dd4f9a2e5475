"""`--middleware`: the operator's ASGI middleware classes and http functions wrap every request."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.types import Message, Receive, Scope, Send
from test_middleware import KEY, fake_registry

from tokenfront.api.app import create_app
from tokenfront.api.user_middleware import MiddlewareError, load_middleware
from tokenfront.config import ServerSettings

HERE = __name__


class StampClass:
    """An ASGI middleware class: appends "class" to the `x-stamp` response header."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def stamped(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message["headers"] if k != b"x-stamp"]
                before = dict(message["headers"]).get(b"x-stamp", b"")
                headers.append((b"x-stamp", before + b"class;"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, stamped)


async def stamp_function(request: Any, call_next: Any) -> Any:
    response = await call_next(request)
    response.headers["x-stamp"] = response.headers.get("x-stamp", "") + "function;"
    return response


def not_a_middleware() -> None:
    """Neither a class nor a coroutine function."""


def client(*paths: str, **settings: Any) -> TestClient:
    app = create_app(fake_registry(), ServerSettings(middleware=list(paths), **settings))
    return TestClient(app, raise_server_exceptions=False)


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/health"), ("GET", "/v1/models"), ("POST", "/v1/completions/render"),
     ("POST", "/v1/chat/completions/derender"), ("GET", "/no/such/route")],
)
def test_both_kinds_wrap_every_route_the_last_given_outermost(method: str, path: str) -> None:
    with client(f"{HERE}.StampClass", f"{HERE}.stamp_function") as c:
        res = c.request(method, path, json={"model": "fake"} if method == "POST" else None)
    # the class (inner) stamps first, the function (outer) after it
    assert res.headers["x-stamp"] == "class;function;"


def test_middleware_sees_requests_the_api_key_refuses() -> None:
    with client(f"{HERE}.StampClass", api_key=[KEY]) as c:
        res = c.post("/v1/completions/render", json={})
    assert res.status_code == 401
    assert res.headers["x-stamp"] == "class;"


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("nomodule", "expected an import path"),
        ("tokenfront.no_such_module.thing", "No module named"),
        (f"{HERE}.missing", "has no attribute"),
        (f"{HERE}.not_a_middleware", "Must be a function or a class"),
    ],
)
def test_a_path_naming_no_middleware_is_refused(path: str, message: str) -> None:
    with pytest.raises(MiddlewareError, match=message):
        load_middleware(path)
