"""Call sections that hold nothing (`START` + whitespace + `END`), dropped from text that is
otherwise kept as written (a parser's `keeps_text_without_tool_choice`), one-shot and streamed.

Streamed, a `START` whose section may still turn out empty (only whitespace or the start of
`END` after it), or a start of `START` at the end of the text, is held back until the next
chunk decides it; the end of the stream releases it.
"""

from __future__ import annotations

import functools
import re


@functools.cache
def _empty_section(start: str, end: str) -> re.Pattern[str]:
    return re.compile(re.escape(start) + r"\s*" + re.escape(end))


def drop_empty_sections(text: str, start: str, end: str) -> str:
    return _empty_section(start, end).sub("", text)


def stream_dropping_empty_sections(
    held: str, text: str, start: str, end: str, *, final: bool
) -> tuple[str, str]:
    """(text to send, text to hold) for a chunk `text` after the `held` text of earlier ones."""
    buf = drop_empty_sections(held + text, start, end)
    if final:
        return buf, ""
    at = buf.rfind(start)
    if at != -1 and end.startswith(buf[at + len(start) :].lstrip()):
        return buf[:at], buf[at:]
    for size in range(min(len(start) - 1, len(buf)), 1, -1):  # "<|…" cut short at the end
        if buf.endswith(start[:size]):
            return buf[:-size], buf[-size:]
    return buf, ""
