"""`--middleware IMPORT.PATH`: the operator's own ASGI middleware, as vLLM applies it.

A class is an ASGI middleware (`cls(app)`); a coroutine function is an `http` middleware
(`async def fn(request, call_next)`, as `@app.middleware("http")`). Each one wraps everything
before it, so the last given is the outermost, as with repeated `app.add_middleware` calls;
all of them wrap the request guard, so they see every HTTP request, hot routes included.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from typing import Any, cast

from starlette.middleware.base import BaseHTTPMiddleware
from starlette.types import ASGIApp


class MiddlewareError(ValueError):
    """A `--middleware` value that names nothing usable."""


def load_middleware(path: str) -> Callable[[ASGIApp], ASGIApp]:
    """The wrapper `path` names: `app -> middleware(app)`."""
    module_path, _, name = path.rpartition(".")
    if not module_path:
        raise MiddlewareError(f"Invalid middleware {path}: expected an import path (module.name).")
    try:
        imported: Any = getattr(importlib.import_module(module_path), name)
    except (ImportError, AttributeError) as exc:
        raise MiddlewareError(f"Invalid middleware {path}: {exc}") from exc
    if inspect.isclass(imported):
        return cast(Callable[[ASGIApp], ASGIApp], imported)
    if inspect.iscoroutinefunction(imported):
        return lambda app: BaseHTTPMiddleware(app, dispatch=imported)
    raise MiddlewareError(f"Invalid middleware {path}. Must be a function or a class.")


def wrap_with_middleware(app: ASGIApp, paths: list[str]) -> ASGIApp:
    """`app` inside each middleware of `paths`, the last one outermost."""
    for path in paths:
        app = load_middleware(path)(app)
    return app
