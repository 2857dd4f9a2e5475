"""One-shot vLLM test vectors replayed as streams (issue 8, session 10).

The hidden corpus streams each one-shot test's model output through the served derender too
(one token per chunk, random 1-4 token chunks, the whole output at once) and scores it against
the same assertion. `oas_cases` gives pytest params (vector switched to streaming, chunking)
for the named tests; run them with `vllm_vectors_run.problems(vec, "streaming", chunking)`.
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_loader import load_vectors

CHUNKINGS = ("1", "mix14", "all")


def oas_cases(
    parser: str, tests: set[str], *, kind: str | None = None, chunkings: tuple[str, ...] = CHUNKINGS
) -> list[Any]:
    """(vector as a stream, chunking) for each one-shot vector of `parser` whose test id (the
    part of `source` after the path) is in `tests`; every name in `tests` must match."""
    found: set[str] = set()
    out = []
    for vec in load_vectors(parser, kind=kind):
        test = vec["source"].split("::", 1)[-1]
        if vec["mode"] != "non_streaming" or test not in tests:
            continue
        found.add(test)
        for chunking in chunkings:
            out.append(pytest.param(dict(vec, mode="streaming"), chunking, id=f"{test}-{chunking}"))
    missing = tests - found
    assert not missing, f"no one-shot vectors for {sorted(missing)}"
    return out


def oas_all_cases(parser: str, source: str, not_streamed: dict[str, str]) -> list[Any]:
    """(vector, chunking) for every one-shot vector of `parser` from the vLLM test file `source`,
    except the test ids in `not_streamed` (`"<test id>"`, or `"<test id>:<chunking>"` for one
    chunking only; the values say why)."""
    out = []
    for vec in load_vectors(parser, mode="non_streaming"):
        test = vec["source"].split("::", 1)[-1]
        if not vec["source"].startswith(source) or test in not_streamed:
            continue
        for chunking in CHUNKINGS:
            if f"{test}:{chunking}" not in not_streamed:
                out.append(pytest.param(vec, chunking, id=f"{test}:{chunking}"))
    return out
