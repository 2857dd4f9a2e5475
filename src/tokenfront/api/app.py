"""The application factory."""

from __future__ import annotations

import logging

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from tokenfront import __version__
from tokenfront.api.errors import APIError
from tokenfront.api.routes import derender, render, system, tokenize
from tokenfront.api.state import AppState
from tokenfront.config import ServerSettings
from tokenfront.tokenization.registry import ModelRegistry

logger = logging.getLogger(__name__)


def create_app(registry: ModelRegistry, settings: ServerSettings | None = None) -> FastAPI:
    """Build the FastAPI app over already-loaded models."""
    settings = settings or ServerSettings()
    app = FastAPI(
        title="tokenfront",
        version=__version__,
        root_path=settings.root_path,
        description="GPU-less render/derender frontend, wire-compatible with vLLM's render server.",
    )
    app.state.tokenfront = AppState(settings=settings, registry=registry)

    app.include_router(system.router)
    app.include_router(tokenize.router)
    app.include_router(render.router)
    app.include_router(derender.router)

    @app.exception_handler(APIError)
    async def _api_error(_: Request, exc: APIError) -> Response:
        return exc.response()

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_: Request, exc: RequestValidationError) -> Response:
        return APIError(
            f"{len(exc.errors())} validation error(s)", err_type="Bad Request"
        ).response()

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_: Request, exc: StarletteHTTPException) -> Response:
        # FastAPI's own shape, as vLLM answers 404/405 for unknown routes and methods.
        return JSONResponse(
            {"detail": exc.detail}, status_code=exc.status_code, headers=exc.headers
        )

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> Response:
        logger.exception("unhandled error")
        return APIError(
            "Internal server error", status=500, err_type="InternalServerError"
        ).response()

    return app
