"""Python-call syntax engine: tool calls written as a Python list of calls.

Formats such as ``[get_weather(city="Paris"), get_time()]`` are parsed with the
standard ``ast`` module (``ast.parse`` only, never ``eval``): every argument must be a
literal (strings, numbers, ``None``/``True``/``False``, JSON's ``null``/``true``/``false``,
lists, tuples, sets, dicts with literal keys, placeholder-free f-strings, signed
numbers). Arguments are re-serialised with ``json.dumps(..., ensure_ascii=False)``.

Streaming re-parses the accumulated text on every chunk after closing its open
brackets and quotes (`close_partial`), and emits only the argument text that can no
longer change. Inputs longer than `MAX_PARSE_CHARS` are never parsed (left as content).
"""

from __future__ import annotations

import ast
import json
import re
import warnings
from collections.abc import Sequence
from typing import Any

from tokenfront.parsers.base import (
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCalls,
    JSONState,
    ToolCall,
    ToolParser,
    random_tool_call_id,
)
from tokenfront.parsers.engines.python_repairs import (
    QUOTES,
    escape_raw_controls,
    has_broken_string,
    is_escaped,
    rename_keyword_params,
    requote_nested,
    restore_keyword_params,
    strip_leading_zero_ints,
)
from tokenfront.parsers.engines.schema_types import is_finite_json

# Longer texts are treated as plain content rather than handed to the Python parser.
MAX_PARSE_CHARS = 1_000_000
# Prefixes parsed while salvaging a list that does not parse (each parse reads the prefix).
MAX_SALVAGE_PARSES = 16


class NotACallList(Exception):
    """The text parsed, but is not a list of literal-argument calls."""


# ---------------------------------------------------------------------------
# Parsing helpers
# ---------------------------------------------------------------------------


def parse_module(text: str) -> ast.Module:
    """`ast.parse` with size bound and Python's syntax warnings silenced."""
    if len(text) > MAX_PARSE_CHARS:
        raise NotACallList("tool call text too long")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text)


def parses_as_python(text: str) -> bool:
    """Whether `parse_module` accepts the text."""
    try:
        parse_module(text)
    except (SyntaxError, ValueError, NotACallList):
        return False
    return True


_NAME_LITERALS: dict[str, Any] = {"null": None, "true": True, "false": False}


def literal_value(node: ast.expr) -> Any:
    """The JSON value of a literal argument expression."""
    if isinstance(node, ast.Constant):
        value = node.value
        if value is None or isinstance(value, (str, int, float)):
            return value
        raise NotACallList("argument is not a JSON value")
    if isinstance(node, ast.Dict):
        if not all(isinstance(key, ast.Constant) for key in node.keys):
            raise NotACallList("dict keys must be literals")
        return {
            key.value: literal_value(value)  # type: ignore[union-attr]
            for key, value in zip(node.keys, node.values, strict=True)
        }
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [literal_value(item) for item in node.elts]
    if isinstance(node, ast.JoinedStr) and all(
        isinstance(part, ast.Constant) for part in node.values
    ):
        return "".join(str(part.value) for part in node.values if isinstance(part, ast.Constant))
    if isinstance(node, ast.Name) and node.id in _NAME_LITERALS:
        return _NAME_LITERALS[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = literal_value(node.operand)
        if isinstance(operand, (int, float)) and not isinstance(operand, bool):
            return -operand if isinstance(node.op, ast.USub) else operand
    raise NotACallList("argument is not a literal")


def _dotted_name(node: ast.expr) -> str:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        raise NotACallList("call target is not a name")
    parts.append(node.id)
    return ".".join(reversed(parts))


def call_to_tool(call: ast.Call) -> ToolCall:
    """One `name(kw=value, ...)` node as a tool call (positional arguments are ignored)."""
    if not isinstance(call.func, (ast.Name, ast.Attribute)):
        raise NotACallList("call target is not a name")
    name = _dotted_name(call.func)
    arguments = {kw.arg: literal_value(kw.value) for kw in call.keywords}
    return ToolCall(name=name, arguments=json.dumps(arguments, ensure_ascii=False))


def calls_in_module(
    module: ast.Module, *, require_one: bool = False, skip_bad_calls: bool = False
) -> list[ToolCall]:
    """The calls of a module whose first statement is a list of calls.

    `skip_bad_calls`: a call whose arguments are not JSON values (bytes, non-finite numbers)
    is dropped instead of failing the whole list, as long as one call survives (vLLM's tests
    `test_bad_sibling_call_does_not_drop_good_calls`, `test_non_finite_argument_rejected`;
    a deliberate deviation from vLLM 0.33.0, see docs/deviations.md).
    """
    if not module.body:
        raise NotACallList("empty text")
    node = getattr(module.body[0], "value", None)
    if not isinstance(node, ast.List) or not all(isinstance(e, ast.Call) for e in node.elts):
        raise NotACallList("not a list of calls")
    if require_one and not node.elts:
        raise NotACallList("empty call list")
    if not skip_bad_calls:
        return [call_to_tool(e) for e in node.elts]  # type: ignore[arg-type]
    calls: list[ToolCall] = []
    failure: Exception | None = None
    for element in node.elts:
        try:
            call = call_to_tool(element)  # type: ignore[arg-type]
            if not is_finite_json(json.loads(call.arguments)):
                raise NotACallList("argument is not a finite JSON number")
        except NotACallList as exc:
            failure = exc
            continue
        calls.append(call)
    if failure is not None and not calls:
        raise failure
    return calls


def salvage_call_prefix(source: str) -> ast.Module | None:
    """The longest `[call(...), ...]` prefix of a list whose later element does not parse.

    vLLM's test_good_call_survives_unparsable_sibling: `[good(...), f(a='x 'y')]` keeps `good`.
    A list that closes and parses but is followed by other text (`[a(), b()]<|end_of_text|>`)
    is no broken sibling: None, so the output stays content as in vLLM 0.33.0.
    """
    if _closes_before_text(source):
        return None
    ends = [m.end() for m in re.finditer(r"\)\s*,", source)]
    for end in list(reversed(ends))[:MAX_SALVAGE_PARSES]:
        candidate = source[: end - 1].rstrip().rstrip(",") + "]"
        try:
            module = parse_module(candidate)
        except (SyntaxError, ValueError, NotACallList):
            continue
        node = getattr(module.body[0], "value", None) if module.body else None
        if isinstance(node, ast.List) and node.elts:
            return module
    return None


def _closes_before_text(source: str) -> bool:
    """Whether a prefix of `source` that ends in `)]` with its brackets balanced parses, and
    text follows it (parses tried: at most MAX_SALVAGE_PARSES)."""
    tries = counted = squares = parens = 0
    for close in _CLOSE_CALL_LIST.finditer(source):
        piece = source[counted : close.end()]
        squares += piece.count("[") - piece.count("]")
        parens += piece.count("(") - piece.count(")")
        counted = close.end()
        if squares or parens:
            continue
        if not source[counted:].strip() or tries == MAX_SALVAGE_PARSES:
            return False
        tries += 1
        try:
            parse_module(source[:counted])
        except (SyntaxError, ValueError, NotACallList):
            continue
        return True
    return False


# ---------------------------------------------------------------------------
# The loose "looks like a call list" test of the pythonic formats
# ---------------------------------------------------------------------------

_IDENT = re.compile(r"[a-zA-Z]\w*")
_CLOSE_CALL_LIST = re.compile(r"\)\s*\]")


def looks_like_call_list(text: str) -> bool:
    """Whether `text` begins like `[name(...), ...]` (trailing text is allowed).

    A call whose argument list starts with `name=` may contain anything up to a later
    `)` + optional whitespace + `]`; calls without arguments are chained either with
    `,` right after `)` (only before the first comma-less chain) or with whitespace.
    Linear time.
    """
    if not text.startswith("["):
        return False
    pos = 1
    comma_phase = True
    while True:
        ident = _IDENT.match(text, pos)
        if ident is None or text[ident.end() : ident.end() + 1] != "(":
            return False
        pos = ident.end() + 1
        if text[pos : pos + 1] == ")":
            pos += 1
            if comma_phase and text[pos : pos + 1] == ",":
                pos += 1
                while pos < len(text) and text[pos].isspace():
                    pos += 1
                continue
            while pos < len(text) and text[pos].isspace():
                pos += 1
            if text[pos : pos + 1] == "]":
                return True
            comma_phase = False
            continue
        kwarg = _IDENT.match(text, pos)
        if kwarg is None or text[kwarg.end() : kwarg.end() + 1] != "=":
            return False
        return _CLOSE_CALL_LIST.search(text, kwarg.end() + 1) is not None


# ---------------------------------------------------------------------------
# Closing partial text for streaming
# ---------------------------------------------------------------------------

_PAIRS = {"[": "]", "(": ")", "{": "}", "'": "'", '"': '"'}


def close_partial(text: str) -> tuple[str, str] | None:
    """Close the open brackets/quotes of partial call text.

    Returns (closed_text, added_suffix), or None while the text is too incomplete to
    say anything (mid-name, after `=` or `:`, ...). Raises NotACallList on mismatched
    brackets.
    """
    stack: list[str] = []
    for index, ch in enumerate(text):
        if stack and stack[-1] in QUOTES:
            if ch == stack[-1] and not is_escaped(text, index):
                stack.pop()
            continue
        if ch in "[({" or ch in QUOTES:
            stack.append(ch)
        elif ch in ")]}":
            opener = {")": "(", "]": "[", "}": "{"}[ch]
            if not stack or stack.pop() != opener:
                raise NotACallList("mismatched brackets")

    text = text.rstrip()
    if text.endswith(("=", ":")):
        return None
    top = stack[-1] if stack else ""
    if top == "{":
        before = text[: text.rfind("{")]
        if before.count(":") <= before.count(","):
            return None
    if top == "(":
        before = text[: text.rfind("(")]
        if before.count("=") <= before.count(","):
            return None
    if text.endswith(","):
        text = text[:-1]
    if top == "[" and not text.endswith(("[", ")")):
        return None
    added = "".join(_PAIRS[ch] for ch in reversed(stack))
    candidate = text + added
    try:
        module = parse_module(candidate)
    except SyntaxError:
        return None
    if not module.body:
        return None
    if "}" in added and any(isinstance(node, ast.Set) for node in ast.walk(module)):
        return None
    return candidate, added


# ---------------------------------------------------------------------------
# Streaming diff of call lists
# ---------------------------------------------------------------------------


def new_streaming_state() -> JSONState:
    # cur: index of the call being streamed (-1 before any); sent: argument text emitted
    # per call; called: whether any tool delta was emitted.
    return {"text": "", "cur": -1, "sent": [], "called": False}


def diff_calls(state: JSONState, calls: list[ToolCall], added: str) -> list[DeltaToolCall]:
    """Deltas for the calls parsed from closed partial text; updates `state`."""
    deltas: list[DeltaToolCall] = []
    sent: list[str] = state["sent"]
    for index, call in enumerate(calls):
        if index < state["cur"]:
            continue
        state["cur"] = index
        if len(sent) == index:
            sent.append("")
        complete = index < len(calls) - 1 or ")]" not in added
        if complete:
            state["cur"] += 1
        withheld = "" if complete else added[:-2]
        if not complete and added[-2] == ")":
            withheld += "}"
        withheld = withheld.replace("'", '"')
        arguments = call.arguments
        if withheld:
            if not arguments.endswith(withheld):
                raise NotACallList("arguments do not end with the withheld suffix")
            arguments = arguments[: -len(withheld)]
        if not sent[index]:
            deltas.append(
                DeltaToolCall(
                    index=index,
                    id=call.id or random_tool_call_id(),
                    type="function",
                    name=call.name,
                    arguments=arguments,
                )
            )
            sent[index] += arguments
        else:
            tail = arguments[len(sent[index]) :]
            if tail:
                deltas.append(DeltaToolCall(index=index, arguments=tail))
                sent[index] += tail
    if deltas:
        state["called"] = True
    return deltas


def lines_as_list(lines: str) -> str:
    """Calls written one per line as a `[call, call]` list."""
    return "[" + ", ".join(line.strip() for line in lines.splitlines() if line.strip()) + "]"


def call_list_delta(state: JSONState, text: str, one_per_line: bool = False) -> DeltaMessage | None:
    """One streaming step over the calls so far: `text` is a `[...]` list or, with
    `one_per_line`, calls one per line; updates `state`."""
    try:
        closed = close_partial(text)
        if closed is None:
            return None
        valid, added = closed
        if one_per_line:
            valid, added = lines_as_list(valid), added + "]"
        calls = calls_in_module(parse_module(valid), skip_bad_calls=True)
        deltas = diff_calls(state, calls, added)
    except Exception:
        return None
    if deltas:
        return DeltaMessage(tool_calls=deltas)
    if not added and state["cur"] > 0:
        return DeltaMessage(content="")
    return None


def unstreamed_call_args(state: JSONState) -> str:
    """What a final chunk appends to the last tool delta (vLLM compares with `{}`)."""
    if not state.get("called"):
        return ""
    sent = state["sent"][0] if state["sent"] else ""
    return "{}"[len(sent) :] if "{}".startswith(sent) else ""


# ---------------------------------------------------------------------------
# The parsers
# ---------------------------------------------------------------------------


class PythonCallListParser(ToolParser):
    """A bare `[call(...), ...]` list as the whole output (pythonic / llama4_pythonic)."""

    # Optional wrapper a model may put around the list (llama4: <|python_start|>...).
    wrapper_start: str | None = None
    wrapper_end: str | None = None
    # Keep the calls before a sibling that does not parse (pythonic; docs/deviations.md).
    salvage_syntax_errors: bool = False

    def _unwrap(self, text: str) -> str:
        if self.wrapper_start and text.startswith(self.wrapper_start):
            text = text[len(self.wrapper_start) :]
            if self.wrapper_end:
                text = text.replace(self.wrapper_end, "")
        return text

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        source = self._unwrap(text)
        if not looks_like_call_list(source):
            return ExtractedToolCalls(False, [], source)
        try:
            try:
                module = parse_module(source)
            except SyntaxError:
                salvaged = salvage_call_prefix(source) if self.salvage_syntax_errors else None
                if salvaged is None:
                    raise
                module = salvaged
            calls = calls_in_module(module, skip_bad_calls=True)
        except Exception:
            return ExtractedToolCalls(False, [], source)
        return ExtractedToolCalls(True, calls, None)

    def initial_state(self) -> JSONState:
        return new_streaming_state()

    def remaining_args(self, state: JSONState) -> str:
        return unstreamed_call_args(state)

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> DeltaMessage | None:
        return self._stream(state, delta_text)

    def _stream(self, state: JSONState, delta_text: str) -> DeltaMessage | None:
        if "text" not in state:
            state.update(new_streaming_state())
        state["text"] += delta_text
        current = state["text"]
        starts = ("[",) + ((self.wrapper_start,) if self.wrapper_start else ())
        if not current.startswith(starts):
            return DeltaMessage(content=delta_text)
        if self.wrapper_start and current.startswith(self.wrapper_start):
            current = current[len(self.wrapper_start) :]
        if self.wrapper_end and current.endswith(self.wrapper_end):
            current = current[: current.rfind(self.wrapper_end)]
        return call_list_delta(state, current)


class WrappedPythonCallParser(ToolParser):
    """A call list between start/end marker tokens, with text around it (lfm2)."""

    start_marker: str = ""
    end_marker: str = ""
    # Whether the parser asks the detokenizer to keep special tokens when tools are on.
    keeps_special_tokens: bool = True

    def wants_special_tokens(self) -> bool:
        """vLLM's adjust_request: keep special tokens when tools are given and not 'none'."""
        return bool(self.ctx.tools) and self.ctx.tool_choice != "none"

    # -- one-shot ---------------------------------------------------------------

    def _strip_echo(self, after: str) -> str:
        last = after.rfind(self.end_marker)
        return after[last + len(self.end_marker) :] if last != -1 else after

    def _split(self, text: str) -> tuple[str | None, str | None]:
        start = text.find(self.start_marker)
        if start == -1:
            return None, text
        body_start = start + len(self.start_marker)
        end = text.find(self.end_marker, start)
        before = text[:start].strip()
        if end == -1:
            return text[body_start:], before or None
        after = self._strip_echo(text[end + len(self.end_marker) :]).strip()
        parts = [part for part in (before, after) if part]
        return text[body_start:end], "\n".join(parts) if parts else None

    @staticmethod
    def _parse_repaired(body: str) -> tuple[ast.Module, bool]:
        try:
            return parse_module(body), False
        except (SyntaxError, ValueError):
            pass
        escaped = escape_raw_controls(strip_leading_zero_ints(body))
        candidates = [escaped]
        requoted, changed = requote_nested(escaped, parses_as_python)
        if changed:
            candidates.append(escape_raw_controls(requoted))
        renamed, kw_renamed = rename_keyword_params(candidates[-1])
        if kw_renamed:
            candidates.append(renamed)
        error: Exception | None = None
        for candidate in candidates:
            try:
                return parse_module(candidate), kw_renamed
            except (SyntaxError, ValueError) as exc:
                error = exc
        assert error is not None
        raise error

    @staticmethod
    def _restore(calls: list[ToolCall]) -> list[ToolCall]:
        for call in calls:
            arguments = json.loads(call.arguments)
            restored = restore_keyword_params(arguments)
            if restored != arguments:
                call.arguments = json.dumps(restored, ensure_ascii=False)
        return calls

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        body, content = self._split(text)
        if body is None:
            return ExtractedToolCalls(False, [], text)
        body = body.strip()
        if not (len(body) >= 2 and body.startswith("[") and body.endswith("]")):
            return ExtractedToolCalls(False, [], text)
        try:
            module, kw_renamed = self._parse_repaired(body)
            calls = calls_in_module(module, require_one=True, skip_bad_calls=True)
            if kw_renamed:
                calls = self._restore(calls)
        except Exception:
            return ExtractedToolCalls(False, [], text)
        return ExtractedToolCalls(True, calls, content)

    # -- streaming --------------------------------------------------------------

    def initial_state(self) -> JSONState:
        return {**new_streaming_state(), "trail": ""}

    def remaining_args(self, state: JSONState) -> str:
        return unstreamed_call_args(state)

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> DeltaMessage | None:
        return self._stream(state, delta_text)

    def _stream(self, state: JSONState, delta_text: str) -> DeltaMessage | None:
        if "text" not in state:
            state.update(self.initial_state())
        previous = state["text"]
        current = previous + delta_text
        state["text"] = current
        start_marker, end_marker = self.start_marker, self.end_marker
        if start_marker not in current:
            return DeltaMessage(content=delta_text)

        leading = ""
        if start_marker not in previous:
            leading = current[len(previous) : current.find(start_marker)]

        end_now = end_marker in current
        end_before = end_marker in previous
        trailing = ""
        if end_now:
            full_after = current[current.find(end_marker) + len(end_marker) :]
            stripped = self._strip_echo(full_after)
            if stripped == full_after:
                if full_after.lstrip().startswith(("[", "<")):
                    final_after = state["trail"]
                else:
                    final_after = full_after
            else:
                final_after = stripped
            if final_after.startswith(state["trail"]):
                trailing = final_after[len(state["trail"]) :]
            state["trail"] = final_after

        if end_now and state["called"] and end_before:
            return DeltaMessage(content=trailing)

        body = current.split(start_marker, 1)[1]
        if end_marker in body:
            body = body.split(end_marker, 1)[0]
        body = body.lstrip()
        around = leading + trailing

        def content_only() -> DeltaMessage | None:
            return DeltaMessage(content=around) if around else None

        try:
            body = escape_raw_controls(strip_leading_zero_ints(body))
            if end_now:
                try:
                    parse_module(body)
                except (SyntaxError, ValueError):
                    requoted, changed = requote_nested(body, parses_as_python)
                    if changed:
                        body = escape_raw_controls(requoted)
            renamed, kw_renamed = rename_keyword_params(body)
            if kw_renamed:
                body = renamed
            if has_broken_string(body):
                return content_only()
            closed = close_partial(body)
            if closed is None:
                return content_only()
            valid, added = closed
            calls = calls_in_module(parse_module(valid), skip_bad_calls=True)
            if kw_renamed:
                calls = self._restore(calls)
            deltas = diff_calls(state, calls, added)
        except Exception:
            return content_only()
        if deltas or around:
            return DeltaMessage(content=around or None, tool_calls=deltas)
        if not added and state["cur"] > 0:
            return DeltaMessage(content="")
        return None
