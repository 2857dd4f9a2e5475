"""`--enable-ssl-refresh`: the server's TLS context reloads its certificate chain and CA file
when they change on disk, so a rotated certificate takes effect without a restart (as vLLM's
`SSLCertRefresher` does). New connections get the new certificate; open ones keep theirs.

uvicorn builds the context through `ssl_context_factory` in each serving process, inside the
event loop, so the watcher is a task of that loop.
"""

from __future__ import annotations

import asyncio
import logging
import os
import ssl
from collections.abc import Callable
from typing import Any

logger = logging.getLogger("tokenfront")

# The watchers, kept referenced while they run.
_watchers: set[asyncio.Task[None]] = set()


def refreshing_context(config: Any, default_factory: Callable[[], ssl.SSLContext]) -> ssl.SSLContext:
    """uvicorn's `ssl_context_factory`: its usual context, watched for file changes."""
    context = default_factory()
    task = asyncio.get_running_loop().create_task(
        watch_certificates(context, config.ssl_keyfile, config.ssl_certfile, config.ssl_ca_certs)
    )
    _watchers.add(task)
    task.add_done_callback(_watchers.discard)
    return context


async def watch_certificates(
    context: ssl.SSLContext, keyfile: str | None, certfile: str | None, ca_certs: str | None
) -> None:
    from watchfiles import awatch

    chain = {os.path.realpath(p) for p in (keyfile, certfile) if p}
    ca = os.path.realpath(ca_certs) if ca_certs else None
    watched = [*chain, *([ca] if ca else [])]
    if not watched:
        return
    async for changes in awatch(*watched):
        changed = {os.path.realpath(path) for _, path in changes}
        try:
            if certfile and changed & chain:
                context.load_cert_chain(certfile, keyfile)
                logger.info("reloaded the TLS certificate chain from %s", certfile)
            if ca and ca in changed:
                context.load_verify_locations(ca)
                logger.info("reloaded the TLS CA certificates from %s", ca)
        except (OSError, ssl.SSLError) as exc:  # a half-written file: the next change retries
            logger.warning("TLS certificate reload failed, keeping the current one: %s", exc)
