"""What a parser derived from the last text it read, kept to resume on a longer text.

The pieces of one stream chunk make a streaming parser read the same call's arguments again
and again, each time a little longer. A reader whose findings in a text stay the same in any
longer text that starts with it resumes after them instead of reading everything again.
"""

from __future__ import annotations

import threading
from typing import Any


class LastRead(threading.local):
    """The last text read on this thread, by which reader, and what it found there."""

    def __init__(self) -> None:
        self.reader: object = None
        self.text = ""
        self.found: Any = None

    def resumable(self, reader: object, text: str) -> Any:
        """What `reader` found in an earlier text that `text` starts with, else None."""
        if self.found is not None and self.reader == reader and text.startswith(self.text):
            return self.found
        return None

    def keep(self, reader: object, text: str, found: Any) -> None:
        self.reader, self.text, self.found = reader, text, found
