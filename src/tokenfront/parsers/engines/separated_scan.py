r"""DeepSeek-style call text read as the specs' regexes read it, in linear time.

The regexes in `parsers/tools/deepseek_v3.py` / `deepseek_v31.py` are vLLM's and stay the
contract, but on text with many markers on one line they backtrack for cubic time. A
`CallFormat` names the same literals and the readers here give the same groups and spans
(tests/parsers/test_separated_calls_scanner.py compares them on random text):

* no fence (V3.1), `B(?P<name>.*?)S(?P<arguments>[\s\S]*?)E`: the name runs from the call
  begin to the first separator on its line, the arguments to the first end after that.
* a fence (V3), `B(?P<type>.*)S(?P<name>.*)FENCE(?P<arguments>[\s\S]*?)END`, FENCE starting
  with a newline: the type runs to the last separator on the call begin's line, the name to
  that line's end, where the fence must start; the arguments run to the first END after it.

A begin marker whose call does not match is skipped (the search goes on after its first
character); after a match the search goes on at the match's end.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple


@dataclass(frozen=True)
class CallFormat:
    begin: str
    sep: str
    end: str
    fence: str | None = None
    # A partial call's arguments end at their last character not in this set (one needed);
    # None: they run to the end of the text.
    partial_trim: str | None = None

    def __post_init__(self) -> None:
        if not self.begin or not self.sep or not self.end or "\n" in self.sep:
            raise ValueError("begin, sep and end must be non-empty, sep on one line")
        if self.fence is not None and not self.fence.startswith("\n"):
            raise ValueError("a fence starts at the end of the header line")


class ScannedCall(NamedTuple):
    start: int
    end: int
    type: str | None
    name: str
    arguments: str


class _Finder:
    """`text.find(needle, start)` for starts that do not decrease: a result still ahead of
    `start` is reused, so each stretch of text is searched once."""

    __slots__ = ("text", "needle", "start", "found")

    def __init__(self, text: str, needle: str) -> None:
        self.text, self.needle = text, needle
        self.start, self.found = 0, -2

    def __call__(self, start: int) -> int:
        if start < self.start or (self.found != -1 and self.found < start):
            self.start, self.found = start, self.text.find(self.needle, start)
        return self.found


def scan_calls(text: str, fmt: CallFormat) -> list[ScannedCall]:
    """What `call_regex.finditer(text)` finds, in order."""
    calls: list[ScannedCall] = []
    begin, newline = _Finder(text, fmt.begin), _Finder(text, "\n")
    sep, end = _Finder(text, fmt.sep), _Finder(text, fmt.end)
    line_seps = (-1, -1)  # (line end, last separator on it after the first begin read there)
    at = begin(0)
    while at != -1:
        head = at + len(fmt.begin)
        line_end = newline(head)
        if line_end == -1:
            line_end = len(text)
        if fmt.fence is None:
            cut = sep(head)
            if cut == -1:
                break  # no separator at all: no later call either
            ok, args = cut < line_end, cut + len(fmt.sep)
        else:
            if line_end == len(text):
                break  # no fence can start on the last line
            if line_seps[0] != line_end:
                line_seps = (line_end, text.rfind(fmt.sep, head, line_end))
            cut, args = line_seps[1], line_end + len(fmt.fence)
            ok = cut >= head and text.startswith(fmt.fence, line_end)
        if not ok:
            at = begin(at + 1)
            continue
        stop = end(args)
        if stop == -1:
            break  # later calls' arguments start no earlier: none is closed
        if fmt.fence is None:
            type_, name = None, text[head:cut]
        else:
            type_, name = text[head:cut], text[cut + len(fmt.sep) : line_end]
        calls.append(ScannedCall(at, stop + len(fmt.end), type_, name, text[args:stop]))
        at = begin(stop + len(fmt.end))
    return calls


def _header_cut(text: str, fmt: CallFormat) -> tuple[int, int] | None:
    """(last separator on the first line, that line's end), None without a separator (or,
    with a fence, without a line end)."""
    line_end = text.find("\n")
    if line_end == -1:
        if fmt.fence is not None:
            return None
        line_end = len(text)
    cut = text.rfind(fmt.sep, 0, line_end)
    return None if cut == -1 else (cut, line_end)


def read_partial(text: str, fmt: CallFormat) -> tuple[str, str] | None:
    r"""(name, arguments) of a call's text after its begin marker, as `portion_regex.match`:
    V3.1 `(?P<name>.*)S(?P<arguments>[\s\S]*)`, V3
    `(?P<type>.*)S(?P<name>.*)FENCE(?P<arguments>[\s\S]*[^\n`])`."""
    found = _header_cut(text, fmt)
    if found is None:
        return None
    cut, line_end = found
    if fmt.fence is None:
        return text[:cut], text[cut + len(fmt.sep) :]
    if not text.startswith(fmt.fence, line_end):
        return None
    arguments = text[line_end + len(fmt.fence) :]
    if fmt.partial_trim is not None:
        arguments = arguments.rstrip(fmt.partial_trim)
        if not arguments:
            return None
    return text[cut + len(fmt.sep) : line_end], arguments


def read_name(text: str, fmt: CallFormat) -> str | None:
    r"""The name in a call's text after its begin marker, as `name_regex.match`: V3.1
    `(?P<name>.*)S`, V3 `(?P<type>.*)S(?P<name>.*)\n`."""
    found = _header_cut(text, fmt)
    if found is None:
        return None
    cut, line_end = found
    return text[:cut] if fmt.fence is None else text[cut + len(fmt.sep) : line_end]
