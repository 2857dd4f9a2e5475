"""The application factory: routes, the request guard and the error handlers."""

from __future__ import annotations

import logging
import threading

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tokenfront import __version__
from tokenfront.api.deferred import start_warm_up
from tokenfront.api.errors import APIError, internal_error, validation_errors
from tokenfront.api.gc_policy import settle_heap
from tokenfront.api.hot_paths import HotPaths
from tokenfront.api.middleware import RequestGuard
from tokenfront.api.routes import derender, render, system, tokenize
from tokenfront.api.state import AppState
from tokenfront.api.user_middleware import wrap_with_middleware
from tokenfront.config import ServerSettings
from tokenfront.tokenization.detokenizer import tokenizer_view
from tokenfront.tokenization.registry import ModelRegistry

logger = logging.getLogger(__name__)


class TokenfrontApp(FastAPI):
    """FastAPI with the request guard and the hot routes in front of FastAPI's own stack.

    HTTP requests meet the guard (limits, API key, metrics, access log) first; the four hot
    routes are answered there (see `hot_paths`), everything else goes through FastAPI's
    middleware and routing as usual. Lifespan events go straight to FastAPI.
    """

    front: ASGIApp | None = None
    # A serving process imports the request modules and tunes the garbage collector once
    # start-up is complete (deferred, gc_policy); in-process apps (tests, embedding) leave the
    # interpreter's settings alone and import the request modules on first use.
    settle_heap_on_startup: bool = False
    warm_up_thread: threading.Thread | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan" and self.settle_heap_on_startup:
            await super().__call__(scope, receive, self._warm_up_at_startup(send))
            return
        if scope["type"] != "http" or self.front is None:
            await super().__call__(scope, receive, send)
            return
        if self.root_path:
            scope["root_path"] = self.root_path
        await self.front(scope, receive, send)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        """FastAPI's own handling of one request (middleware, routing, error handlers)."""
        await super().__call__(scope, receive, send)

    def _warm_up_at_startup(self, send: Send) -> Send:
        """`send` that, on reporting a successful lifespan start-up, starts the warm-up thread:
        the request modules are imported, then the heap is settled (api/deferred.py)."""

        async def wrapped(message: Message) -> None:
            if message.get("type") == "lifespan.startup.complete" and self.warm_up_thread is None:
                self.warm_up_thread = start_warm_up(after=self._after_warm_up)
            await send(message)

        return wrapped

    def _after_warm_up(self) -> None:
        """Build each model's prompt encoder (a first render would otherwise), then settle
        the heap over everything start-up and the warm-up created."""
        try:
            for model in self.state.tokenfront.registry:
                _ = tokenizer_view(model.tokenizer).prompt_encoder
        except Exception:  # a render builds it (or fails the same way) on first use
            logger.exception("building the prompt encoders failed")
        settle_heap()


def create_app(
    registry: ModelRegistry, settings: ServerSettings | None = None, *, serving: bool = False
) -> FastAPI:
    """Build the FastAPI app over already-loaded models; `serving`: for a server process (once
    start-up is complete, imports the request modules in the background and then tunes the
    garbage collector, see `deferred` and `gc_policy`)."""
    settings = settings or ServerSettings()
    docs: dict[str, str | None] = (
        {"openapi_url": None, "docs_url": None, "redoc_url": None}
        if settings.disable_fastapi_docs
        else {}
    )
    app = TokenfrontApp(
        title="tokenfront",
        version=__version__,
        root_path=settings.root_path,
        description="GPU-less render/derender frontend, wire-compatible with vLLM's render server.",
        **docs,  # type: ignore[arg-type]
    )
    app.state.tokenfront = AppState(settings=settings, registry=registry)

    app.include_router(system.router)
    app.include_router(tokenize.router)
    if settings.enable_tokenizer_info_endpoint:
        app.include_router(tokenize.info_router)
    app.include_router(render.router)
    app.include_router(derender.router)
    if settings.engine_url:
        # Gateway mode: OpenAI endpoints over a token-in/token-out engine.
        from tokenfront.api.routes import gateway
        from tokenfront.gateway.fingerprint import system_fingerprint

        app.state.tokenfront.system_fingerprint = system_fingerprint(settings, registry.models)
        app.include_router(gateway.router)
    # CORS answers preflights behind the guard (OPTIONS skips the API key check there).
    app.add_middleware(
        CORSMiddleware,
        allow_origins=settings.allowed_origins,
        allow_credentials=settings.allow_credentials,
        allow_methods=settings.allowed_methods,
        allow_headers=settings.allowed_headers,
    )
    # The guard sees every request; the hot render/derender routes skip FastAPI's machinery
    # (same handlers, see hot_paths).
    app.front = RequestGuard(HotPaths(app.handle, fastapi_app=app), settings=settings)
    if settings.middleware:
        app.front = wrap_with_middleware(app.front, settings.middleware)
    app.settle_heap_on_startup = serving
    _add_error_handlers(app)
    return app


def _add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(APIError)
    async def _api_error(_: Request, exc: APIError) -> Response:
        return exc.response()

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_: Request, exc: RequestValidationError) -> Response:
        return validation_errors(exc.errors()).response()

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_: Request, exc: StarletteHTTPException) -> Response:
        # FastAPI's own shape, as vLLM answers 404/405 for unknown routes and methods.
        return JSONResponse(
            {"detail": exc.detail}, status_code=exc.status_code, headers=exc.headers
        )

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> Response:
        # Reached only if the request guard is bypassed; it normally answers first.
        logger.error("unhandled error on %s", request.url.path, exc_info=exc)
        return internal_error().response()


def create_app_from_env() -> FastAPI:
    """Factory for `uvicorn --factory` worker processes: settings come from the environment.

    `tokenfront serve --workers N` puts the parsed settings into `TOKENFRONT_SERVE_CONFIG`
    (see `tokenfront.launch`); each worker loads its own models from them.
    """
    from tokenfront.launch import load_from_env

    options, settings = load_from_env()
    return create_app(ModelRegistry.load(options), settings, serving=True)
