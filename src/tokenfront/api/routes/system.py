"""Health (and /ping), load, version, Prometheus metrics and the model list."""

from __future__ import annotations

import secrets
import time

from fastapi import APIRouter, Request
from starlette.responses import Response

from tokenfront import __version__, metrics
from tokenfront.api.responses import JSONBytesResponse
from tokenfront.api.state import app_state

router = APIRouter()


@router.get("/health")
@router.get("/ping")  # vLLM's SageMaker alias of /health, GET and POST
@router.post("/ping")
async def health() -> Response:
    return Response(status_code=200)


@router.get("/load")
async def server_load() -> Response:
    """vLLM's load gauge counts requests on its engine-backed routes (generate, embeddings, ...);
    a render server has none, so, as on `vllm launch render`, it stays 0."""
    return JSONBytesResponse({"server_load": 0})


@router.get("/kv_event_sources")
async def kv_event_sources() -> Response:
    """KV-event publishers per data-parallel rank: none without an engine (vLLM answers {})."""
    return JSONBytesResponse({})


@router.get("/metrics", include_in_schema=False)
async def prometheus_metrics() -> Response:
    body, content_type = metrics.exposition()
    return Response(body, media_type=content_type)


@router.get("/version")
async def version() -> Response:
    return JSONBytesResponse({"version": __version__})


@router.get("/v1/models")
async def list_models(request: Request) -> Response:
    state = app_state(request)
    now = int(time.time())
    data = []
    for model in state.registry.models:
        for name in model.names:
            data.append(
                {
                    "id": name,
                    "object": "model",
                    "created": now,
                    "owned_by": "vllm",
                    "root": model.path,
                    "parent": None,
                    "max_model_len": model.max_model_len,
                    "permission": [
                        {
                            "id": f"modelperm-{secrets.token_hex(8)}",
                            "object": "model_permission",
                            "created": now,
                            "allow_create_engine": False,
                            "allow_sampling": True,
                            "allow_logprobs": True,
                            "allow_search_indices": False,
                            "allow_view": True,
                            "allow_fine_tuning": False,
                            "organization": "*",
                            "group": None,
                            "is_blocking": False,
                        }
                    ],
                }
            )
    return JSONBytesResponse({"object": "list", "data": data})
