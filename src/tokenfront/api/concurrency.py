"""Running CPU-bound work (tokenization, decode, parsing) off the event loop."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import anyio.to_thread

P = ParamSpec("P")
R = TypeVar("R")


async def run_cpu(fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """Run `fn` in the worker thread pool so `/health` and I/O stay responsive."""
    return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))
