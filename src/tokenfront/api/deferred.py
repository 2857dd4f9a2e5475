"""Request-handling code that is imported after the server reports ready (cold start).

`tokenfront serve` answers /health once the models are loaded (tokenizers, chat template text,
output parsers), the app is built and its lifespan start-up has run (stream-state signer,
tokenizer views): what readiness has always meant. The render modules (jinja2, the template
adjusters, structural tags, harmony, multimodal, ...: ~0.1 s of imports, more than a tenth of
the cold start) are not part of that, nor are the request models (pydantic schemas of
`protocol`) and the derender handlers, so the routes import them on first use through
`load_request_modules()`, and a serving process imports them in a background thread as soon as
start-up is complete, then settles the heap (`gc_policy.settle_heap`) over everything start-up
and the warm-up created. A request that arrives before the warm-up is done waits for the same
imports: one lock, so two threads never import these modules concurrently.
"""

from __future__ import annotations

import importlib
import logging
import sys
import threading
from collections.abc import Callable

logger = logging.getLogger(__name__)

# Imported on first use (or by the warm-up); everything else is imported before /health is 200.
REQUEST_MODULES = (
    "tokenfront.protocol.requests",
    "tokenfront.protocol.generate",
    "tokenfront.derender.chat",
    "tokenfront.derender.completion",
    "tokenfront.derender.stream",
    "tokenfront.render.chat",
    "tokenfront.render.completion",
    "tokenfront.render.tokenize",
)

_lock = threading.Lock()
_loaded = False


def load_request_modules() -> None:
    """Import `REQUEST_MODULES` once (blocks while another thread is importing them)."""
    global _loaded
    if _loaded:
        return
    with _lock:
        if not _loaded:
            for name in REQUEST_MODULES:
                importlib.import_module(name)
            _loaded = True


# While the warm-up runs, a thread waiting for the GIL (the event loop answering /health or
# /v1/models) asks for it after this many seconds instead of CPython's 5 ms.
WARM_UP_SWITCH_INTERVAL = 0.0005


def warm_up(after: Callable[[], None]) -> None:
    """Import the request modules and their lazily built validators, then call `after`."""
    previous = sys.getswitchinterval()
    sys.setswitchinterval(min(previous, WARM_UP_SWITCH_INTERVAL))
    try:
        load_request_modules()
        from tokenfront.api.routes.tokenize import tokenize_adapter

        tokenize_adapter()
    except Exception:  # the first request that needs them reports the same error
        logger.exception("warming up the request handlers failed")
    finally:
        sys.setswitchinterval(previous)
        after()


def start_warm_up(after: Callable[[], None]) -> threading.Thread:
    """`warm_up(after)` in a daemon thread."""
    thread = threading.Thread(target=warm_up, args=(after,), name="tokenfront-warm-up", daemon=True)
    thread.start()
    return thread
