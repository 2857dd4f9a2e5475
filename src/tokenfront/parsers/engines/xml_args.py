"""Argument bodies of XML-style tool calls: raw markup -> JSON object text.

Each codec converts the raw argument markup of one call (complete, or cut off while
streaming) into a JSON object of string values, and can follow an open trailing value so a
streamed delta that only extends it is escaped and appended without re-converting. The
"open value" follower keeps its state in a plain dict.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

import regex

from tokenfront.parsers.engines.last_read import LastRead
from tokenfront.parsers.engines.object_text import ObjectText, member_text, object_text

OpenValue = dict[str, Any]


def _escape(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)[1:-1]


def _end_window(text: str, value_end: regex.Pattern[str]) -> str:
    """The tail of `text` that could still grow into a value terminator."""
    start = text.rfind("<")
    if start == -1:
        return ""
    tail = text[start:]
    return tail if value_end.fullmatch(tail, partial=True) else ""


class Pair(NamedTuple):
    key: str
    value: str
    start: int
    end: int


@dataclass(frozen=True)
class PairScanner:
    r"""`KS key KE \s* VS value VE` pairs, found in linear time exactly where the patterns
    `KS(.*?)KE\s*VS(.*?)VE` (`pairs`) and `KS(.*?)KE\s*VS(.*)$` (`open_pair`), DOTALL, match;
    on many key starts without closers the patterns backtrack super-linearly.

    `spaces` is `\s*` compiled by the patterns' own module (`re` and `regex` differ on
    \x1c-\x1f). VS must not start with a space: only the longest run of spaces can precede it.
    """

    key_start: str
    key_end: str
    value_start: str
    value_end: str
    spaces: re.Pattern[str] | regex.Pattern[str]

    def pairs(self, text: str, pos: int = 0) -> Iterator[Pair]:
        """The pattern's non-overlapping matches, left to right (from `pos`, where a match
        ended or the text starts)."""
        last_close = text.rfind(self.value_end)
        while (start := text.find(self.key_start, pos)) != -1:
            found = self._key_end(text, start, last_close)
            if found is None:
                return  # a later key start has fewer key ends to try: none fits either
            key_end, value_at = found
            close = text.find(self.value_end, value_at)
            pos = close + len(self.value_end)
            yield Pair(text[start + len(self.key_start) : key_end], text[value_at:close], start, pos)

    def open_pair(self, text: str) -> Pair | None:
        """The first match of the pattern whose value runs to the end of `text`."""
        start = text.find(self.key_start)
        found = None if start == -1 else self._key_end(text, start, len(text))
        if found is None:
            return None
        key_end, value_at = found
        return Pair(text[start + len(self.key_start) : key_end], text[value_at:], start, len(text))

    def _key_end(self, text: str, start: int, last_close: int) -> tuple[int, int] | None:
        """The lazy key's end for a key starting at `start`: the first key end followed by
        spaces and a value start whose value can end at or before `last_close`; with the
        value's start."""
        at = text.find(self.key_end, start + len(self.key_start))
        while at != -1:
            spaces = self.spaces.match(text, at + len(self.key_end))
            value_at = spaces.end() if spaces else at + len(self.key_end)
            if text.startswith(self.value_start, value_at):
                value_at += len(self.value_start)
                if value_at <= last_close:
                    return at, value_at
            at = text.find(self.key_end, at + 1)
        return None


class ArgCodec(Protocol):
    def convert(self, raw: str, partial: bool) -> str: ...

    def open_value(self, raw: str) -> OpenValue | None: ...

    def extend(self, state: OpenValue, delta: str) -> str | None: ...


_last_equals = LastRead()  # EqualsParamCodec's matches: (params, gaps, end of the last)


class EqualsParamCodec:
    """`<parameter=NAME>VALUE</parameter>` (Qwen3-Coder, Seed-OSS); one wrapping newline trimmed."""

    _param = regex.compile(
        r"<\s*parameter\s*=\s*([^>]*)>(.*?)(?:<\s*/\s*parameter\s*>|(?=<\s*parameter\s*=))",
        regex.DOTALL,
    )
    _open = regex.compile(r"<\s*parameter\s*=\s*([^>]+)>(.*)$", regex.DOTALL)
    _value_end = regex.compile(r"<\s*/\s*parameter\s*>|<\s*parameter\s*=")

    @staticmethod
    def _trim(value: str) -> str:
        if value.startswith("\n"):
            value = value[1:]
        if value.endswith("\n"):
            value = value[:-1]
        return value

    def _read(self, raw: str) -> tuple[ObjectText, regex.Match[str] | None]:
        """`_param.finditer(raw)`'s parameters (values trimmed), and `_open` searched in what
        `_param.sub("", raw)` leaves."""
        # A match attempt that reads to the end of the text is followed by no match (a later
        # `<parameter=` would have ended its value), so the matches of a text are found again,
        # the same, in any longer text: a stream chunk's longer arguments resume after them.
        resumed = _last_equals.resumable(self, raw)
        if resumed is None:
            params, gaps, end = ObjectText(), [], 0
        else:
            params, gaps, end = resumed[0].copy(), list(resumed[1]), resumed[2]
        for m in self._param.finditer(raw, end):
            params[m.group(1)] = self._trim(m.group(2))
            gaps.append(raw[end : m.start()])
            end = m.end()
        _last_equals.keep(self, raw, (params, gaps, end))
        return params, self._open.search("".join(gaps) + raw[end:])

    def convert(self, raw: str, partial: bool) -> str:
        params, m = self._read(raw)
        if partial and m is not None:
            return params.text((m.group(1), self._trim(m.group(2))))
        return params.text()

    def open_value(self, raw: str) -> OpenValue | None:
        params, m = self._read(raw)
        if m is None:
            return None
        name, value = m.group(1), m.group(2)
        if name in params:
            return None  # a repeated key keeps its first position
        held = "\n" if value.endswith("\n") and value != "\n" else ""
        return {"window": _end_window(value, self._value_end), "started": bool(value), "held": held}

    def extend(self, state: OpenValue, delta: str) -> str | None:
        text = state["window"] + delta
        if self._value_end.search(text):
            return None
        state["window"] = _end_window(text, self._value_end)
        text = state["held"] + delta
        if not state["started"] and text:
            state["started"] = True
            text = text.removeprefix("\n")
        state["held"] = "\n" if text.endswith("\n") else ""
        return _escape(text[: len(text) - len(state["held"])])


_last_pairs = LastRead()  # KeyValueCodec's pairs: (params, gaps, end of the last pair)


class KeyValueCodec:
    """`<arg_key>K</arg_key><arg_value>V</arg_value>` (GLM-4.5/4.7); values verbatim."""

    # The contract: `_parse` takes `_pair.finditer(raw)`, then `_open.search` in what
    # `_pair.sub("", raw)` leaves, as `_scan` finds them (tests/parsers/test_xml_args_keyvalue_scan.py)
    _pair = regex.compile(
        r"<arg_key>(?P<key>.*?)</arg_key>\s*<arg_value>(?P<value>.*?)</arg_value>", regex.DOTALL
    )
    _open = regex.compile(
        r"<arg_key>(?P<key>.*?)</arg_key>\s*<arg_value>(?P<value>.*)$", regex.DOTALL
    )
    _close = "</arg_value>"
    _scan = PairScanner("<arg_key>", "</arg_key>", "<arg_value>", _close, regex.compile(r"\s*"))

    def _read(self, raw: str, partial: bool) -> tuple[ObjectText, tuple[str, str] | None]:
        """The closed pairs, and (key, value) of an open last pair when `partial`."""
        # A pair found in a text is found again, the same, in any longer text that starts
        # with it (an earlier key end it skipped had no `<arg_value>` after it), so a stream
        # chunk's next, longer arguments resume after the pairs of the previous ones.
        resumed = _last_pairs.resumable(self, raw)
        if resumed is None:
            params, gaps, pos = ObjectText(), [], 0  # gaps: what removing the pairs leaves
        else:
            params, gaps, pos = resumed[0].copy(), list(resumed[1]), resumed[2]
        for pair in self._scan.pairs(raw, pos):
            params[pair.key.strip()] = pair.value
            gaps.append(raw[pos : pair.start])
            pos = pair.end
        _last_pairs.keep(self, raw, (params, gaps, pos))
        if partial:
            found = self._scan.open_pair("".join(gaps) + raw[pos:])
            if found and found.key.strip():
                return params, (found.key.strip(), found.value)
        return params, None

    def _parse(self, raw: str, partial: bool) -> tuple[dict[str, Any], str | None]:
        params, last = self._read(raw, partial)
        if last is None:
            return params.values, None
        return {**params.values, last[0]: last[1]}, last[0]  # the kept pairs stay as found

    def convert(self, raw: str, partial: bool) -> str:
        params, last = self._read(raw, partial)
        return params.text(last)

    def open_value(self, raw: str) -> OpenValue | None:
        params, open_key = self._parse(raw, True)
        if open_key is None or next(reversed(params)) != open_key:
            return None
        return {"tail": raw[-(len(self._close) - 1) :]}

    def extend(self, state: OpenValue, delta: str) -> str | None:
        text = state["tail"] + delta
        if self._close in text:
            return None
        state["tail"] = text[-(len(self._close) - 1) :]
        return _escape(delta)


@dataclass
class _Found:
    """`NamedParamCodec`'s matches in a text: (name, value) of those with a name and
    (name, member text) of each, the text before each match, where each ends, and how many
    named ones precede each match end."""

    named: list[tuple[str, str]]
    members: list[tuple[str, str]]
    gaps: list[str]
    ends: list[int]
    named_count: list[int] = field(default_factory=lambda: [0])

    @property
    def end(self) -> int:
        return self.ends[-1] if self.ends else 0


_last_named = LastRead()  # NamedParamCodec's matches (_Found)


class NamedParamCodec:
    """`<parameter name="NAME">VALUE</parameter>` (MiniMax-M2); values verbatim."""

    _name = r"(?:\"(?P<dq_name>[^\"]*)\"|'(?P<sq_name>[^']*)'|(?P<bare_name>[^>\s]+))"
    _param = regex.compile(
        r"<\s*parameter\s+name\s*=\s*" + _name + r"\s*>(?P<value>.*?)"
        r"(?:<\s*/\s*parameter\s*>|(?=<\s*parameter\s+name\s*=))",
        regex.DOTALL,
    )
    _open = regex.compile(
        r"<\s*parameter\s+name\s*=\s*" + _name + r"\s*>(?P<value>.*)$", regex.DOTALL
    )
    _value_end = regex.compile(r"<\s*/\s*parameter\s*>|<\s*parameter\s+name\s*=")
    # A quoted name's opening: before its quote (searched backwards), with it.
    _name_opening = regex.compile(r"(?r)<\s*parameter\s+name\s*=\s*\Z")
    _quoted_opening = regex.compile(r"<\s*parameter\s+name\s*=\s*[\"']")
    _value_end_backwards = regex.compile(r"(?r)<\s*/\s*parameter\s*>|<\s*parameter\s+name\s*=")

    @staticmethod
    def _param_name(m: regex.Match[str]) -> str:
        return (m.group("dq_name") or m.group("sq_name") or m.group("bare_name") or "").strip()

    def _read(self, raw: str, partial: bool) -> tuple[_Found, regex.Match[str] | None]:
        """The matches, and when `partial` the open last parameter's match (with a name)."""
        found = self._params(raw)
        if not partial:
            return found, None
        m = self._open.search("".join(found.gaps) + raw[found.end :])
        return found, m if m and self._param_name(m) else None

    def _parse(self, raw: str, partial: bool) -> tuple[dict[str, Any], regex.Match[str] | None]:
        found, open_match = self._read(raw, partial)
        params: dict[str, Any] = dict(found.named)
        if open_match is not None:
            params[self._param_name(open_match)] = open_match.group("value")
        return params, open_match

    def _params(self, raw: str) -> _Found:
        """`_param.finditer(raw)`: the named values, and the text between the matches
        (`_param.sub` leaves it), resumed after the matches the last call on this thread
        found in a text `raw` starts with."""
        old = _last_named.resumable(self, raw)
        if old is None:
            found = _Found([], [], [], [])
        else:
            kept = bisect.bisect_right(old.ends, self._stable_end(_last_named.text))
            named = old.named_count[kept]
            found = _Found(
                old.named[:named], old.members[:named], old.gaps[:kept], old.ends[:kept]
            )
            found.named_count[:] = old.named_count[: kept + 1]
        end = found.end
        for m in self._param.finditer(raw, end):
            name = self._param_name(m)
            if name:
                found.named.append((name, m.group("value")))
                found.members.append((name, member_text(name, m.group("value"))))
            found.gaps.append(raw[end : m.start()])
            end = m.end()
            found.ends.append(end)
            found.named_count.append(len(found.named))
        _last_named.keep(self, raw, found)
        return found

    def _stable_end(self, raw: str) -> int:
        """Where the matches in `raw` that every longer text keeps end.

        A match attempt that failed by reading to the end of `raw` may succeed in a longer
        text and swallow the matches after its start, even where it failed only in its
        quoted-name branch and matched by its bare-name one. Only a quoted name can read
        that far: one left open, or one whose value has no end after it, so one opened after
        the last value end or at the last quote of its kind before it.
        """
        last_end = self._value_end_backwards.search(raw)
        if last_end is None:
            return 0  # no value end: nothing matched
        found = self._quoted_opening.search(raw, last_end.start())
        bound = found.start() if found else len(raw)
        for quote in "\"'":
            at = raw.rfind(quote, 0, last_end.start())
            opening = self._name_opening.search(raw, 0, at) if at != -1 else None
            if opening is not None:
                bound = min(bound, opening.start())
        return bound

    def convert(self, raw: str, partial: bool) -> str:
        # A last parameter left without `</parameter>` keeps its value when the call closes
        # too (vLLM's test_minimax_m2.py; vLLM 0.33.0 drops it: docs/deviations.md).
        found, open_match = self._read(raw, True)
        members = dict(found.members)  # a repeated name keeps its place and its last value
        if open_match is not None:
            name = self._param_name(open_match)
            members[name] = member_text(name, open_match.group("value"))
        return object_text(members.values())

    def open_value(self, raw: str) -> OpenValue | None:
        params, m = self._parse(raw, True)
        if m is None or next(reversed(params)) != self._param_name(m):
            return None
        bare = m.group("bare_name")
        if self._value_end.search(m.string, 0, m.start()) or (
            bare is not None and bare[0] in "\"'"
        ):
            return None
        return {"window": _end_window(m.group("value"), self._value_end)}

    def extend(self, state: OpenValue, delta: str) -> str | None:
        text = state["window"] + delta
        if self._value_end.search(text):
            return None
        state["window"] = _end_window(text, self._value_end)
        return _escape(delta)
