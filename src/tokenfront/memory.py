"""Giving freed heap back to the operating system after start-up.

Loading a tokenizer parses a large `tokenizer.json` (11 MB for a 150k vocabulary) into
temporary structures; glibc keeps the freed pages in its arenas, so the process would carry
~100 MB it no longer uses. `malloc_trim(0)` returns them. Other C libraries: a no-op.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging

logger = logging.getLogger(__name__)


def release_free_heap() -> bool:
    """Return free heap pages to the OS (glibc only); whether it was possible."""
    name = ctypes.util.find_library("c")
    if not name:
        return False
    try:
        trim = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):
        return False
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    trim(0)
    return True

