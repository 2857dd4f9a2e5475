"""Running CPU-bound work (tokenization, decode, parsing) off the event loop."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import anyio.to_thread
from starlette.requests import Request

P = ParamSpec("P")
R = TypeVar("R")

# Requests with a body up to this size are handled on the event loop: their work takes well
# under a few milliseconds, less than the hop to a worker thread and back costs in wake-ups and
# GIL hand-overs (profiles: ~25% of a small derender's server CPU). Larger bodies (big logprob
# or batched payloads) still go to the thread pool so `/health` stays responsive.
INLINE_MAX_BYTES = 256 * 1024


async def run_cpu(fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """Run `fn` in the worker thread pool so `/health` and I/O stay responsive."""
    return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))


async def run_cpu_for(request: Request, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """`fn(*args)` inline for a small request body, else in the worker thread pool."""
    declared = request.headers.get("content-length")
    size = int(declared) if declared is not None and declared.isdigit() else None
    return await run_cpu_sized(size, fn, *args, **kwargs)


async def run_cpu_sized(
    body_bytes: int | None, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs
) -> R:
    """`fn(*args)` inline when the body is known to be small, else in the worker thread pool."""
    if body_bytes is not None and body_bytes <= INLINE_MAX_BYTES:
        return fn(*args, **kwargs)
    return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))
