"""The mock engine's HTTP app: vLLM's `/inference/v1/generate` (tokens mode), abort, health.

Wire shapes are those of vLLM 0.33.0's token-in/token-out server: a `GenerateRequest` in,
a `GenerateTokensResponse` out, or with `stream: true` SSE `GenerateTokensStreamResponse`
chunks, an optional usage chunk (`stream_options.include_usage`) and `data: [DONE]`.
Extra for tests: `GET /mock/requests` lists active, aborted and disconnected request ids.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import orjson
from fastapi import FastAPI, Request
from pydantic import BaseModel, ConfigDict, Field, NonNegativeInt, ValidationError
from starlette.responses import JSONResponse, Response, StreamingResponse

from tokenfront.mock_engine.outputs import (
    Planned,
    StopRules,
    encode_reply,
    fake_logprobs,
    plan_output,
)
from tokenfront.mock_engine.script import Reply, Script
from tokenfront.tokenization.registry import ServedModel

logger = logging.getLogger(__name__)


class MockGenerateRequest(BaseModel):
    """The part of vLLM's `GenerateRequest` the mock reads (other fields are accepted)."""

    model_config = ConfigDict(extra="allow")

    request_id: str | None = None
    token_ids: list[NonNegativeInt] = Field(min_length=1)
    sampling_params: dict[str, Any] = Field(default_factory=dict)
    model: str | None = None
    stream: bool | None = False
    stream_options: dict[str, Any] | None = None
    return_token_ids: bool | None = None
    output_mode: str = "tokens"


@dataclass
class EngineState:
    """Request bookkeeping: what runs, what was aborted (for tests and demos)."""

    active: dict[str, asyncio.Event] = field(default_factory=dict)
    aborted: list[str] = field(default_factory=list)
    disconnected: list[str] = field(default_factory=list)
    completed: int = 0

    def start(self, request_id: str) -> asyncio.Event:
        event = asyncio.Event()
        self.active[request_id] = event
        return event

    def abort(self, request_ids: list[str]) -> None:
        for rid in request_ids:
            self.aborted.append(rid)
            event = self.active.get(rid)
            if event is not None:
                event.set()


@dataclass
class MockEngine:
    model: ServedModel
    script: Script
    token_delay: float = 0.0
    chunk_tokens: int = 1
    state: EngineState = field(default_factory=EngineState)

    def prompt_text(self, token_ids: list[int]) -> str:
        text: str = self.model.tokenizer.decode(token_ids, skip_special_tokens=False)
        return text


def _error(message: str, status: int = 400, err_type: str = "BadRequestError") -> Response:
    body = {"error": {"message": message, "type": err_type, "param": None, "code": status}}
    return JSONResponse(body, status_code=status)


def _error_type(status: int) -> str:
    return {
        400: "BadRequestError",
        404: "NotFoundError",
        429: "RateLimitError",
        503: "ServiceUnavailableError",
    }.get(status, "InternalServerError")


def _choice(
    index: int,
    token_ids: list[int],
    finish_reason: str | None,
    stop_reason: int | str | None,
    logprobs: dict[str, Any] | None,
) -> dict[str, Any]:
    return {
        "index": index,
        "finish_reason": finish_reason,
        "stop_reason": stop_reason,
        "token_ids": token_ids,
        "routed_experts": None,
        "sampling_mask": None,
        "weight_versions": None,
        "logprobs": logprobs,
    }


def _usage(prompt_tokens: int, completion_tokens: int) -> dict[str, Any]:
    return {
        "prompt_tokens": prompt_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
        "completion_tokens": completion_tokens,
    }


def _logprobs(engine: MockEngine, sp: dict[str, Any], ids: list[int]) -> dict[str, Any] | None:
    k = sp.get("logprobs")
    if k is None:
        return None
    return fake_logprobs(ids, max(int(k), 1), engine.model.vocab_size)


def _plans(engine: MockEngine, body: MockGenerateRequest, reply: Reply) -> list[Planned]:
    rules = StopRules.from_sampling(body.sampling_params, engine.model, len(body.token_ids))
    reply_ids = encode_reply(engine.model, reply.output)
    n = int(body.sampling_params.get("n") or 1)
    plan = plan_output(engine.model, reply_ids, rules)
    return [Planned(list(plan.token_ids), plan.finish_reason, plan.stop_reason) for _ in range(n)]


@dataclass
class Job:
    """One generate request being served."""

    engine: MockEngine
    body: MockGenerateRequest
    request_id: str
    plans: list[Planned]
    delay: float
    aborted: asyncio.Event


async def _full(job: Job) -> dict[str, Any]:
    engine, body, request_id, plans = job.engine, job.body, job.request_id, job.plans
    delay, aborted = job.delay, job.aborted
    sp = body.sampling_params
    longest = max((len(p.token_ids) for p in plans), default=0)
    if delay > 0 and longest:
        await _pause(aborted, delay * longest)
    choices = []
    completion = 0
    for i, plan in enumerate(plans):
        ids, finish, stop = plan.token_ids, plan.finish_reason, plan.stop_reason
        if aborted.is_set():
            ids, finish, stop = [], "abort", None
        completion += len(ids)
        choices.append(_choice(i, ids, finish, stop, _logprobs(engine, sp, ids)))
    return {
        "request_id": request_id,
        "model": body.model or engine.model.name,
        "created": int(time.time()),
        "usage": _usage(len(body.token_ids), completion),
        "prompt_logprobs": None,
        "prompt_token_id_logprobs": None,
        "prompt_token_ids": body.token_ids if body.return_token_ids else None,
        "mm_placeholders": None,
        "metrics": None,
        "kv_transfer_params": None,
        "ec_transfer_params": None,
        "output_mode": "tokens",
        "choices": choices,
    }


async def _pause(aborted: asyncio.Event, seconds: float) -> None:
    """Sleep like a generating engine, waking early on an abort."""
    try:
        await asyncio.wait_for(aborted.wait(), seconds)
    except TimeoutError:
        pass


def _sse(data: dict[str, Any]) -> bytes:
    return b"data: " + orjson.dumps(data) + b"\n\n"


async def _stream(job: Job) -> AsyncIterator[bytes]:
    engine, body, request_id, plans = job.engine, job.body, job.request_id, job.plans
    delay, aborted = job.delay, job.aborted
    sp = body.sampling_params
    options = body.stream_options or {}
    include_usage = bool(options.get("include_usage"))
    continuous = include_usage and bool(options.get("continuous_usage_stats"))
    prompt_ids: list[int] | None = body.token_ids if body.return_token_ids else None
    pos = [0] * len(plans)
    done = [False] * len(plans)
    step = max(engine.chunk_tokens, 1)
    try:
        while not all(done):
            if delay > 0:
                await _pause(aborted, delay * step)
            for i, plan in enumerate(plans):
                if done[i]:
                    continue
                if aborted.is_set():
                    ids: list[int] = []
                    finish: str | None = "abort"
                    stop: int | str | None = None
                    done[i] = True
                else:
                    ids = plan.token_ids[pos[i] : pos[i] + step]
                    pos[i] += len(ids)
                    done[i] = pos[i] >= len(plan.token_ids)
                    finish = plan.finish_reason if done[i] else None
                    stop = plan.stop_reason if done[i] else None
                chunk: dict[str, Any] = {
                    "request_id": request_id,
                    "usage": _usage(len(body.token_ids), pos[i]) if continuous else None,
                    "output_mode": "tokens",
                    "choices": [_choice(i, ids, finish, stop, _logprobs(engine, sp, ids))],
                }
                if prompt_ids is not None:
                    chunk["prompt_token_ids"] = prompt_ids
                    prompt_ids = None
                yield _sse(chunk)
        if include_usage:
            usage_chunk = {
                "request_id": request_id,
                "usage": _usage(len(body.token_ids), sum(pos)),
                "output_mode": "tokens",
                "choices": [],
            }
            yield _sse(usage_chunk)
        yield b"data: [DONE]\n\n"
        engine.state.completed += 1
    except asyncio.CancelledError:
        # The HTTP connection closed: vLLM aborts the request the same way.
        engine.state.disconnected.append(request_id)
        raise
    finally:
        engine.state.active.pop(request_id, None)


def create_mock_app(engine: MockEngine) -> FastAPI:
    app = FastAPI(
        title="tokenfront mock engine", description="Scripted test double for vLLM's generate API."
    )
    app.state.engine = engine

    @app.get("/health")
    async def health() -> Response:
        return Response(status_code=200)

    @app.get("/v1/models")
    async def models() -> Response:
        data = [
            {"id": name, "object": "model", "owned_by": "tokenfront-mock"}
            for name in engine.model.names
        ]
        return JSONResponse({"object": "list", "data": data})

    @app.get("/mock/requests")
    async def requests() -> Response:
        st = engine.state
        return JSONResponse(
            {
                "active": sorted(st.active),
                "aborted": st.aborted,
                "disconnected": st.disconnected,
                "completed": st.completed,
            }
        )

    async def abort(request: Request) -> Response:
        try:
            data = json.loads(await request.body())
        except json.JSONDecodeError as exc:
            return JSONResponse({"detail": f"JSON decode error: {exc}"}, status_code=400)
        ids = data.get("request_ids") if isinstance(data, dict) else None
        if ids is None:
            return JSONResponse(
                {"detail": "Missing 'request_ids' in request body"}, status_code=400
            )
        engine.state.abort([str(i) for i in ids])
        return Response(status_code=200)

    app.add_api_route("/inference/v1/abort_requests", abort, methods=["POST"])
    app.add_api_route("/abort_requests", abort, methods=["POST"])

    @app.post("/inference/v1/generate")
    async def generate(request: Request) -> Response:
        try:
            body = MockGenerateRequest.model_validate_json(await request.body())
        except ValidationError as exc:
            return _error(
                f"{exc.error_count()} validation error(s): {exc.errors(include_url=False)}"
            )
        if body.output_mode != "tokens":
            return _error("the mock engine only serves output_mode='tokens'")
        if max(body.token_ids) >= engine.model.vocab_size:
            return _error("token_ids out of vocabulary")
        if body.model and body.model not in engine.model.names:
            return _error(f"The model `{body.model}` does not exist.", 404, "NotFoundError")
        reply = engine.script.reply_for(engine.prompt_text(body.token_ids))
        if reply.error is not None:
            status = reply.error.status
            return _error(reply.error.message, status, _error_type(status))
        base = request.headers.get("X-Request-Id") or body.request_id or f"{time.time_ns():x}"
        request_id = f"generate-tokens-{base}"
        try:
            plans = _plans(engine, body, reply)
        except (TypeError, ValueError) as exc:
            return _error(f"invalid sampling_params: {exc}")
        delay = engine.token_delay if reply.token_delay is None else reply.token_delay
        job = Job(engine, body, request_id, plans, delay, engine.state.start(request_id))
        if body.stream:
            return StreamingResponse(_stream(job), media_type="text/event-stream")
        try:
            result = await _full(job)
        finally:
            engine.state.active.pop(request_id, None)
        engine.state.completed += 1
        return JSONResponse(result)

    return app
