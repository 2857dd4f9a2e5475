"""What a parser derived from the last text it read, kept to resume on a longer text.

The pieces of one stream chunk make a streaming parser read the same call's arguments again
and again, each time a little longer. A reader whose findings in a text stay the same in any
longer text that starts with it resumes after them instead of reading everything again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class LastRead(threading.local):
    """The last text read on this thread, by which reader, and what it found there."""

    def __init__(self) -> None:
        self.reader: object = None
        self.text = ""
        self.found: Any = None

    def resumable(self, reader: object, text: str) -> Any:
        """What `reader` found in an earlier text that `text` starts with, else None."""
        if (
            self.found is not None
            and (self.reader is reader or self.reader == reader)
            and text.startswith(self.text)
        ):
            return self.found
        return None

    def keep(self, reader: object, text: str, found: Any) -> None:
        self.reader, self.text, self.found = reader, text, found


_NOTHING = object()


class LastDerived(threading.local, Generic[T]):
    """What `derive` made of the last object passed on this thread (a request's tools or a
    tool's properties), made again only for another object: a stream chunk asks once per piece."""

    def __init__(self, derive: Callable[[Any], T]) -> None:
        self.derive = derive
        self.source: object = _NOTHING
        self.value: T | None = None

    def of(self, source: object) -> T:
        if self.source is not source:
            self.source, self.value = source, self.derive(source)
        return self.value  # type: ignore[return-value]
