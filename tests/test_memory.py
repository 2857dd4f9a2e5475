"""Start-up heap release: freed tokenizer-parsing memory goes back to the OS."""

from __future__ import annotations

import sys

import pytest

from tokenfront.memory import release_free_heap


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_release_free_heap_lowers_rss_after_a_large_free() -> None:
    def rss_pages() -> int:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1])

    blocks = [bytearray(1000) for _ in range(100_000)]  # ~100 MB of small heap blocks
    del blocks[1:]
    before = rss_pages()
    assert release_free_heap()
    assert rss_pages() < before
