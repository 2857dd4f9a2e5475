"""Where `<parameter=NAME>` values end when a value may itself hold tool-call markup.

A string parameter can carry text that looks like the markup around it (a file that documents
the tool-call format, a parser fixture, a template). The rules, from vLLM's Qwen3 XML/Coder
parser tests (`tests/tool_parsers/test_qwen3_xml_coder_shared.py`):

* inside a value, a `<parameter=X>` that starts a line opens a nested literal, which the next
  `</parameter>` closes again; only a `</parameter>` outside nested literals can end the value;
* such a `</parameter>` ends the value when what follows it (after whitespace) is
  structural: a `<parameter=X>` with X a parameter of the tool (any X when the schema names
  none), `</function>`, `</tool_call>`, `<function=`, or the end of the call. Followed by
  anything else (text, or a `<parameter=X>` with X outside the schema) it is text of the
  value only if a later `</parameter>` does end the value: when none does, or only a missing
  close tag would, the first such `</parameter>` ends it after all, as in vLLM 0.33.0 (X is
  then read as a parameter, the text after it dropped); a stream holds the value from there
  until it knows. A line after it that reads as a misspelled opener of a schema parameter not
  given yet (`<parmeter=days>`, `ameter=days>`) is structural too: the value ends there and
  the misspelled parameter is lost, as in vLLM 0.33.0 (so is one whose `<parameter=` is two
  edits away: `<p<arameter=days>`, `<parametedays>`);
* a `<parameter=X>` outside nested literals, with X a parameter of the tool not yet given in
  this call, ends a value that never got its `</parameter>` (a missing close tag), at a line
  start or within a line (`</paramete<parameter=unit>`: as vLLM 0.33.0); any other
  `<parameter=` within a line is text.

Whitespace inside the parameter tags (`<\nparameter=x>`, `</ parameter >`) is read as vLLM
0.33.0's argument regexes read it.

Cut-off text is walked conservatively: a `</parameter>` whose follower is not complete yet, or
a `<parameter=` whose name is not complete yet (within a line: only one that may still name
such an X), stops the walk there, so the values read so far only ever grow.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import regex

from tokenfront.parsers.engines.last_read import LastRead
from tokenfront.parsers.engines.object_text import ObjectText
from tokenfront.parsers.engines.xml_args import EqualsParamCodec, OpenValue, _end_window

# `<parameter=` and `</parameter>`, with whitespace inside the tags read as vLLM 0.33.0 reads it
_OPENER = regex.compile(r"<\s*parameter\s*=")
_CLOSER = regex.compile(r"<\s*/\s*parameter\s*>")
_WS = " \t\r\n"


class CallMarkup(NamedTuple):
    """The markup around a call body: the call wrapper and the function tags."""

    call_start: str = "<tool_call>"
    call_end: str = "</tool_call>"
    function_start: str = "<function="
    function_end: str = "</function>"

    @property
    def followers(self) -> tuple[str, ...]:
        """What may follow a value's real `</parameter>` (besides a schema parameter)."""
        return self.function_end, self.call_end, self.function_start


QWEN_CALL_MARKUP = CallMarkup()


@dataclass(frozen=True)
class Param:
    name: str
    value: str  # raw value text after `>` (not trimmed)
    closed: bool
    # ended by the next parameter's opener, not by its own `</parameter>`
    implicit: bool = False


@dataclass(frozen=True)
class Walk:
    params: list[Param]
    # The last value: "none" (every value ended), "open" (nothing undecided: later text
    # only extends it) or "stop" (undecided from where its text stops).
    tail: str
    # Offset in the body where an unended value's text starts.
    value_start: int
    # The ended parameters' trimmed values by name, in first-seen order (a repeated name
    # keeps its first position and its last value), with their JSON text.
    closed_values: ObjectText
    # The open value holds a `</parameter>` read as text that ends it unless a later one does.
    soft_end: bool = False
    # The open value holds a call closer (`</tool_call>`, `</function>`) before any opener of
    # its kind: the call was over there.
    closed_call: bool = False


# A partial walk's ended parameters never change as the body grows: the next walk of a
# longer body resumes after them (and where the scan of the open value paused).
_last = LastRead()


def _param_name(body: str, name_start: int, gt: int) -> str:
    """The name of a `<parameter=NAME>` (vLLM 0.33.0 drops leading whitespace)."""
    return body[name_start:gt].lstrip()


def _valid(name: str, names: frozenset[str] | None) -> bool:
    return names is None or name in names


def _next_opener(body: str, start: int) -> regex.Match[str] | None:
    return _OPENER.search(body, start)


def _last_tag_start(body: str, start: int) -> int:
    """Where a parameter tag may begin that the end of `body` cuts off (else its end), for a
    body in which no tag starts at or after `start`."""
    at = body.rfind("<", start)
    if at != -1 and any(tag.match(body, at, partial=True) for tag in (_OPENER, _CLOSER)):
        return at
    return len(body)


def _could_name(partial: str, fresh: frozenset[str], names: frozenset[str] | None) -> bool:
    """Whether a `<parameter=` cut off after `partial` may still name a fresh parameter."""
    partial = partial.lstrip()
    return names is None or any(name.startswith(partial) for name in fresh)


def _follower(
    body: str,
    at: int,
    names: frozenset[str] | None,
    final: bool,
    followers: tuple[str, ...],
    fresh: frozenset[str] = frozenset(),
) -> str:
    """Whether the `</parameter>` ending at `at` closes the value: close, literal, wait, or
    undeclared (a `<parameter=X>` follows with X outside the schema). `fresh`: the schema's
    parameters not given yet, which a misspelled opener (`<parmeter=days>`) may still name."""
    while at < len(body) and body[at] in _WS:
        at += 1
    undecided = "close" if final else "wait"
    left = len(body) - at
    if not left:
        return undecided
    opener = _OPENER.match(body, at, partial=not final)
    if opener is not None:
        gt = body.find(">", opener.end())
        if opener.partial or gt == -1:
            return undecided
        return "close" if _valid(_param_name(body, opener.end(), gt), names) else "undeclared"
    for marker in followers:
        if body.startswith(marker, at):
            return "close"
        if left < len(marker) and marker.startswith(body[at:]):
            return undecided
    if fresh:
        misspelled = _MISSPELLED_OPENER.match(body, at, partial=not final)
        if misspelled is not None:
            if misspelled.partial:
                return "wait"
            if misspelled.group(1) in fresh:
                return "close"
        near = _near_opener(body, at, fresh, final)
        if near is not None:
            return near
    return "literal"


# A damaged `<parameter=NAME>` line (`<parmeter=days>`, `ameter=unit>`, `<paramete\nr=x>`,
# `}<parameter=x>`).
_MISSPELLED_OPENER = regex.compile(
    r'(?:[^<>="/\n]{1,8}<parameter=|<?[^<>=/"]{0,24}=)([A-Za-z_][\w.-]*)>'
)
# ... or one within two edits of `<parameter=` before the name (`<p<arameter=x>`, `<paramete x>`)
_NEAR_OPENER_PREFIX = regex.compile(r"(?:<parameter=){e<=2}")
_NEAR_OPENER_SLACK = len("<parameter=") + 2


def _near_opener(body: str, at: int, fresh: frozenset[str], final: bool) -> str | None:
    """"close" when the line at `at` is a fresh parameter's opener a couple of edits away
    from `<parameter=NAME>`, "wait" while it may still become one, else None."""
    limit = at + _NEAR_OPENER_SLACK + max(map(len, fresh)) + 1
    gt = body.find(">", at, limit)
    newline = body.find("\n", at, limit if gt == -1 else gt)
    if newline != -1:
        return None
    if gt == -1:
        return "wait" if not final and len(body) < limit else None
    line = body[at:gt]
    for name in fresh:
        if line.endswith(name) and _NEAR_OPENER_PREFIX.fullmatch(line, 0, len(line) - len(name)):
            return "close"
    return None


# Where a scan of an unended value paused: its offset, nesting depth, and the first
# `</parameter>` it kept as text (start, end), which ends the value after all if no later one does.
Paused = tuple[int, int, "tuple[int, int] | None"]


def _value_end(
    body: str,
    value_start: int,
    current: str,
    names: frozenset[str] | None,
    seen: ObjectText,
    final: bool,
    followers: tuple[str, ...],
    paused: Paused | None = None,
) -> tuple[str, int, int, Paused]:
    """How the value starting at `value_start` ends: (kind, end, resume offset, where the
    scan paused).

    kind: "closed" (a real `</parameter>` at end), "implicit" (a new parameter at end),
    "open" (no end yet) or "stop" (undecided from end on). For the last two the scan's
    state is returned: the same scan of a longer body resumes there.
    """
    i, depth, fallback = (value_start, 0, None) if paused is None else paused
    # the schema's parameters a misspelled opener after a `</parameter>` may still name
    fresh = frozenset(n for n in names if n not in seen and n != current) if names else frozenset()
    # the first `<parameter=` / `</parameter>` at or after i, each searched for again only
    # once i passed it
    opener, closer = _next_opener(body, i), _CLOSER.search(body, i)

    def stop(at: int) -> tuple[str, int, int, Paused]:
        # undecided from a kept `</parameter>` on, if any: the text after it may not be value
        end = at if fallback is None else fallback[0]
        return "stop", end, end, (i, depth, fallback)

    while True:
        if closer is not None and closer.start() < i:
            closer = _CLOSER.search(body, i)
        if opener is not None and opener.start() < i:
            opener = _next_opener(body, i)
        if opener is not None and (closer is None or opener.start() < closer.start()):
            at, name_start = opener.span()
            line_start = at == value_start or body[at - 1] == "\n"
            gt = body.find(">", name_start)
            if gt == -1:
                partial = body[name_start:]
                if not final and (line_start or _could_name(partial, fresh, names)):
                    return stop(at)
                i = name_start
                continue
            name = _param_name(body, name_start, gt)
            if depth == 0 and _valid(name, names) and name not in seen and name != current:
                if fallback is not None:  # a real `</parameter>` beats a missing one
                    return "closed", *fallback, (i, depth, None)
                return "implicit", at, at, (i, depth, None)
            if line_start:  # a nested literal, closed by the next `</parameter>`
                depth += 1
                i = gt + 1
            else:  # text
                i = name_start
            continue
        if closer is None:
            i = _last_tag_start(body, i)  # a longer body's scan resumes there
            if fallback is not None:
                if final:
                    return "closed", *fallback, (i, depth, None)
                return stop(len(body))
            return "open", len(body), len(body), (i, depth, None)
        close, after = closer.span()
        if depth > 0:
            depth -= 1
            i = after
            continue
        verdict = _follower(body, after, names, final, followers, fresh)
        if verdict == "close":
            return "closed", close, after, (i, depth, None)
        if verdict == "wait":
            return stop(close)
        if fallback is None:  # "literal" or "undeclared": value text if a later close ends it
            fallback = (close, after)
        i = after


def walk_params(
    body: str,
    names: frozenset[str] | None,
    final: bool,
    markup: CallMarkup = QWEN_CALL_MARKUP,
    *,
    keep: bool = True,
) -> Walk:
    """Split a call body (the text after `<function=NAME>`) into its parameters.

    `names`: the tool's parameter names (None: unknown, any name counts). `final`: the body
    is complete (its end closes an undecided value), else it may still grow. `markup`: the
    call markup around the body. `keep`: the next walk may resume from this one (False for a
    look ahead at text the next walks do not start with).
    """
    if final:
        return _walk(body, names, markup, True, [], ObjectText(), 0).walk
    reader = (names, markup)
    last: _Progress | None = _last.resumable(reader, body)
    if last is None:
        found = _walk(body, names, markup, False, [], ObjectText(), 0)
    elif len(body) == len(_last.text):
        return last.walk
    else:
        params, closed_values = last.walk.params[: last.ended], last.walk.closed_values.copy()
        found = _walk(
            body,
            names,
            markup,
            False,
            params,
            closed_values,
            last.resume,
            last.paused,
            last.firsts,
        )
    if keep:
        _last.keep(reader, body, found)
    return found.walk


class _Progress(NamedTuple):
    """A walk of a body that may still grow, and where a walk of a longer body resumes."""

    walk: Walk
    ended: int  # how many of its parameters ended
    resume: int  # the offset after the last that did
    paused: Paused | None  # where the scan of the unended value paused
    firsts: FirstMarkup | None  # the unended value's call markup found so far


def _walk(
    body: str,
    names: frozenset[str] | None,
    markup: CallMarkup,
    final: bool,
    params: list[Param],
    closed_values: ObjectText,
    pos: int,
    paused: Paused | None = None,
    found: FirstMarkup | None = None,
) -> _Progress:
    """Walk on from `pos`, after the ended `params` (`paused`, `found`: the scan of the
    value after them so far)."""
    while True:
        opener = _OPENER.search(body, pos)
        if opener is None:
            break
        gt = body.find(">", opener.end())
        if gt == -1:
            break
        name = _param_name(body, opener.end(), gt)
        start = gt + 1
        kind, end, resume, paused = _value_end(
            body, start, name, names, closed_values, final, markup.followers, paused
        )
        value = body[start:end]
        if kind in ("open", "stop"):
            params.append(Param(name, value, False))
            firsts = _first_markup(value, markup, found)
            soft_end = paused is not None and paused[2] is not None
            walk = Walk(params, kind, start, closed_values, soft_end, firsts.closed_call)
            return _Progress(walk, len(params) - 1, pos, paused, firsts)
        params.append(Param(name, value, True, kind == "implicit"))
        closed_values[name] = trim_value(value)
        pos, paused, found = resume, None, None
    return _Progress(Walk(params, "none", -1, closed_values), len(params), pos, None, None)


class FirstMarkup(NamedTuple):
    """The first offset of each call marker (in `CallMarkup` order; -1: none yet) in an open
    value of the given length: a longer reading of the same value (values only grow) looks
    only at what its new end can hold."""

    length: int
    firsts: tuple[int, ...]

    @property
    def closed_call(self) -> bool:
        """A closer before any opener of its kind."""
        call, call_end, function, function_end = self.firsts
        return any(
            closer != -1 and (opener == -1 or closer < opener)
            for opener, closer in ((call, call_end), (function, function_end))
        )


def _first_markup(value: str, markup: CallMarkup, known: FirstMarkup | None) -> FirstMarkup:
    if known is None or known.length > len(value):
        return FirstMarkup(len(value), tuple(value.find(text) for text in markup))
    looked = known.length
    return FirstMarkup(
        len(value),
        tuple(
            first if first != -1 else value.find(text, max(0, looked - len(text) + 1))
            for first, text in zip(known.firsts, markup, strict=True)
        ),
    )


def trim_value(value: str) -> str:
    """One wrapping newline on each side of a value is markup."""
    if value.startswith("\n"):
        value = value[1:]
    if value.endswith("\n"):
        value = value[:-1]
    return value


class NestedParamCodec(EqualsParamCodec):
    """`<parameter=NAME>VALUE</parameter>` bodies walked by `walk_params`.

    Converts like `EqualsParamCodec` (values as strings, one wrapping newline trimmed, a
    value without its end dropped from a complete body), with value ends found by the
    rules above; `names` are the tool's parameter names (None: unknown), `markup` the call
    markup around a body.
    """

    def __init__(self, markup: CallMarkup = QWEN_CALL_MARKUP) -> None:
        super().__init__()
        self.markup = markup

    def convert(self, raw: str, partial: bool, names: frozenset[str] | None = None) -> str:
        walk = walk_params(raw, names, final=not partial, markup=self.markup)
        last = walk.params[-1] if walk.params else None
        if partial and last is not None and not last.closed and last.name:
            return walk.closed_values.text((last.name, trim_value(last.value)))
        return walk.closed_values.text()

    def open_value(self, raw: str, names: frozenset[str] | None = None) -> OpenValue | None:
        walk = walk_params(raw, names, final=False, markup=self.markup)
        if walk.tail != "open" or not walk.params:
            return None
        last = walk.params[-1]
        if not last.name or last.name in walk.closed_values:
            return None  # a repeated key keeps its first position
        value = last.value
        held = "\n" if value.endswith("\n") and value != "\n" else ""
        return {"window": _end_window(value, self._value_end), "started": bool(value), "held": held}
