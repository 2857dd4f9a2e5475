"""The DeepSeek DSML tool-call grammar as plain rows, shared by its tool and reasoning specs.

    <think>...</think>                                   (V4 / V4.1 only)
    <｜DSML｜tool_calls>                                 (V3.2: function_calls, V4.1: `<｜DSML｜ calls>`)
    <｜DSML｜invoke name="NAME">
    <｜DSML｜parameter name="KEY" string="true|false">VALUE</｜DSML｜parameter>
    </｜DSML｜invoke>
    </｜DSML｜tool_calls>

A row is (state, terminal, next state, events) with the symbolic events "start" (reasoning
start), "end" (reasoning end), "call" (call start) and "close" (call end); each engine maps
them to its own event names. A tool block ends the turn: text after it is dropped.
"""

from __future__ import annotations

import contextlib
import json
import math
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar

import regex

from tokenfront.parsers.base import ParseContext
from tokenfront.parsers.engines.last_read import LastRead
from tokenfront.parsers.engines.object_text import ObjectText
from tokenfront.parsers.engines.schema_types import tool_properties
from tokenfront.parsers.engines.xml_params import (
    E_CALL_END,
    E_CALL_START,
    E_REASONING_END,
    E_REASONING_START,
    Grammar,
    MarkupToolParser,
)
from tokenfront.parsers.registry import tool_parser
from tokenfront.parsers.tools.dsml_orphans import OrphanInvokeGate

CONTENT, REASONING = "CONTENT", "REASONING"
PRE, NAME, ARGS, BETWEEN = "TOOL_PREAMBLE", "TOOL_NAME", "TOOL_ARGS", "TOOL_BETWEEN"
Row = tuple[str, str, str, tuple[str, ...]]


@dataclass(frozen=True)
class Dialect:
    """One spelling of the DSML markers."""

    tool_start: tuple[str, ...]  # canonical spelling first
    tool_end: str
    invoke_prefix: str
    invoke_end: str
    param_start: str
    param_close: str
    reasoning: bool

    def terminals(self) -> dict[str, str]:
        out = {
            "TOOL_END": self.tool_end,
            "INVOKE_PREFIX": self.invoke_prefix,
            "INVOKE_NAME_END": '">',
            "INVOKE_END": self.invoke_end,
            "PARAM_START": self.param_start,
            "PARAM_CLOSE": self.param_close,
        }
        for i, spelling in enumerate(self.tool_start):
            out[self.tool_start_names()[i]] = spelling
        if self.reasoning:
            out = {"THINK_START": "<think>", "THINK_END": "</think>", **out}
        return out

    def tool_start_names(self) -> list[str]:
        return ["TOOL_START"] + [f"TOOL_START_{i}" for i in range(1, len(self.tool_start))]

    def token_terminals(self) -> dict[str, str]:
        out = {"TOOL_START": self.tool_start[0], "TOOL_END": self.tool_end}
        if self.reasoning:
            out = {"THINK_START": "<think>", "THINK_END": "</think>", **out}
        return out

    def rows(self, thinking: bool, block_ends_turn: bool = True) -> list[Row]:
        """The state machine; `block_ends_turn=False`: text after the closed tool block is
        content again (V4's tool parser, vLLM's test_deepseek_v4.py::TestMissingInvokeEnd)."""
        after = BETWEEN if block_ends_turn else CONTENT
        rows: list[Row] = []
        if self.reasoning:
            rows += [
                (CONTENT, "THINK_START", REASONING, ("start",)),
                (CONTENT, "THINK_END", CONTENT, ()),
                (REASONING, "THINK_START", REASONING, ()),
                (REASONING, "THINK_END", CONTENT, ("end",)),
            ]
        for start in self.tool_start_names():
            if self.reasoning:
                rows.append((REASONING, start, PRE, ("end",)))
            rows += [(CONTENT, start, PRE, ()), (BETWEEN, start, PRE, ())]
        rows += [
            (PRE, "INVOKE_PREFIX", NAME, ("call",)),
            (CONTENT, "INVOKE_PREFIX", NAME, ("call",)),
            (NAME, "INVOKE_NAME_END", ARGS, ()),
            (ARGS, "INVOKE_END", BETWEEN, ("close",)),
            (ARGS, "TOOL_END", after, ("close",)),
            (BETWEEN, "INVOKE_PREFIX", NAME, ("call",)),
            (BETWEEN, "TOOL_END", after, ()),
        ]
        return rows


_DS = "｜DSML｜"
V32 = Dialect(
    (f"<{_DS}function_calls>",), f"</{_DS}function_calls>", f'<{_DS}invoke name="',
    f"</{_DS}invoke>", f"<{_DS}parameter", f"</{_DS}parameter>", reasoning=False,
)  # fmt: skip
V4 = Dialect(
    (f"<{_DS}tool_calls>", f"<{_DS}toolcalls>", f"<{_DS}tool>"), f"</{_DS}tool_calls>",
    f'<{_DS}invoke name="', f"</{_DS}invoke>", f"<{_DS}parameter", f"</{_DS}parameter>",
    reasoning=True,
)  # fmt: skip
V41 = Dialect(
    (f"<{_DS} calls>", f"<{_DS}toolcalls>", f"<{_DS}tool>"), f"</{_DS} calls>",
    f'<{_DS} invoke name="', f"</{_DS} invoke>", f"<{_DS} parameter", f"</{_DS} parameter>",
    reasoning=True,
)  # fmt: skip


def thinking_from_kwargs(kwargs: dict[str, object]) -> bool:
    """DeepSeek V4: `thinking` / `enable_thinking`, default on; reasoning_effort "none" is off."""
    if "thinking" not in kwargs and "enable_thinking" not in kwargs:
        thinking = True
    else:
        thinking = bool(kwargs.get("thinking") or kwargs.get("enable_thinking"))
    return thinking and kwargs.get("reasoning_effort") != "none"


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-finite JSON constant {name}")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"non-finite JSON number {text}")
    return value


def loads_finite(text: str) -> Any:
    """`json.loads` refusing NaN / Infinity and numbers beyond a float (`1e999`): such a value
    stays its literal text, so the arguments remain strict JSON (vLLM's test_dsml_finite.py)."""
    return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)


_last_params = LastRead()  # DsmlParamCodec's complete parameters: (values, end of the last)


class DsmlParamCodec:
    """`<PARAM name="K" string="true|false">V</PARAM>`: strings verbatim, others JSON when valid.

    A missing `string` attribute counts as "false". No open-value follower: the engine
    re-converts on deltas holding `>` (vLLM's arg_structural_chars).
    """

    def __init__(self, dialect: Dialect) -> None:
        start, close = regex.escape(dialect.param_start), regex.escape(dialect.param_close)
        head = rf'{start}\s+name="([^"]+)"(?:\s+string="([^"]*)")?\s*>'
        self._param = regex.compile(rf"{head}(.*?)(?:{close}|(?={start}\s+name=))", regex.DOTALL)
        self._partial = regex.compile(rf"{head}(.*)$", regex.DOTALL)

    def _complete(self, raw: str) -> tuple[ObjectText, int]:
        """The values of the parameters `raw` closes, and where the last ends. A match found
        in a text is found again in any longer text that starts with it (an attempt that
        read to the end of the text is followed by no match), so a stream chunk's longer
        arguments resume after the previous matches."""
        resumed = _last_params.resumable(self, raw)
        params, last_end = (ObjectText(), 0) if resumed is None else (resumed[0].copy(), resumed[1])
        for m in self._param.finditer(raw, last_end):
            name, is_str, value = m.group(1), m.group(2), m.group(3)
            if is_str == "true":
                params[name] = value
            else:
                try:
                    params[name] = loads_finite(value)
                except ValueError:
                    params[name] = value
            last_end = m.end()
        _last_params.keep(self, raw, (params, last_end))
        return params, last_end  # kept for the next text: not to be changed

    def convert(self, raw: str, partial: bool) -> str:
        params, last_end = self._complete(raw)
        last: tuple[str, object] | None = None
        if partial:
            pm = self._partial.search(raw, last_end)
            if pm:
                name, is_str, value = pm.group(1), pm.group(2), pm.group(3)
                if is_str == "true":
                    last = (name, value)
                else:
                    with contextlib.suppress(ValueError):
                        last = (name, loads_finite(value))
        return params.text(last)

    def open_value(self, raw: str) -> None:
        return None

    def extend(self, state: dict[str, object], delta: str) -> str | None:
        return None


def _end_window(text: str, value_end: regex.Pattern[str]) -> str:
    """The tail of `text` from its last `<` when that could still grow into a value end."""
    start = text.rfind("<")
    if start < 0:
        return ""
    tail = text[start:]
    return tail if value_end.fullmatch(tail, partial=True) else ""


class DsmlStreamingCodec(DsmlParamCodec):
    """DsmlParamCodec whose open `string="true"` value streams as it grows, before its closing
    tag (vLLM's tests: `test_long_string_parameter_incremental_streaming`, GitHub #52846);
    whether the value may stream is still the engine's (a schema string key, or no schema)."""

    def __init__(self, dialect: Dialect) -> None:
        super().__init__(dialect)
        start, close = regex.escape(dialect.param_start), regex.escape(dialect.param_close)
        self._value_end = regex.compile(rf"{close}|{start}\s+name=")

    def open_value(self, raw: str) -> dict[str, Any] | None:  # type: ignore[override]
        names, last_end = self._complete(raw)
        pm = self._partial.search(raw, last_end)
        if pm is None or pm.group(2) != "true" or pm.group(1) in names:
            return None
        if _end_window(pm.group(3), self._value_end):
            return None  # the value may already be ending: re-convert instead
        return {"window": ""}

    def extend(self, state: dict[str, Any], delta: str) -> str | None:  # type: ignore[override]
        text = state["window"] + delta
        if self._value_end.search(text):
            return None
        window = _end_window(text, self._value_end)
        state["window"] = window
        return json.dumps(text[: len(text) - len(window)], ensure_ascii=False)[1:-1]


def unwrap_wrapper_args(args_json: str, tools: list[dict[str, Any]] | None, name: str) -> str:
    """`{"arguments": {...}}` / `{"input": {...}}` wrapping the real arguments is unwrapped
    when the tool declares neither key and the inner keys all belong to its schema."""
    if not tools or not name:
        return args_json
    try:
        args = json.loads(args_json)
    except ValueError:
        return args_json
    properties = tool_properties(tools, name)
    if not isinstance(args, dict) or not properties or not isinstance(properties, dict):
        return args_json
    allowed = set(properties)
    for wrapper in ("arguments", "input"):
        if set(args) != {wrapper} or wrapper in allowed:
            continue
        inner = args[wrapper]
        if isinstance(inner, str):
            try:
                inner = loads_finite(inner)
            except ValueError:
                return args_json
        if isinstance(inner, dict) and set(inner).issubset(allowed):
            return json.dumps(inner, ensure_ascii=False)
    return args_json


_WRAPPER_START = regex.compile(r'\{\s*"(arguments|input)"')


def may_unwrap(args_json: str, tools: list[dict[str, Any]] | None, name: str) -> bool:
    """Partial arguments whose only key so far is a wrapper `unwrap_wrapper_args` may remove."""
    if not tools or not name:
        return False
    m = _WRAPPER_START.match(args_json)
    if m is None:
        return False
    properties = tool_properties(tools, name)
    if not properties or not isinstance(properties, dict) or m.group(1) in properties:
        return False
    try:
        parsed = json.loads(args_json)
    except ValueError:
        return True
    return isinstance(parsed, dict) and set(parsed) == {m.group(1)}


# ---- tool parser specs --------------------------------------------------------------------
_XML_EVENTS = {
    "start": E_REASONING_START,
    "end": E_REASONING_END,
    "call": E_CALL_START,
    "close": E_CALL_END,
}


@cache
def dsml_tool_grammar(
    dialect: Dialect, thinking: bool, block_ends_turn: bool = True, stream_strings: bool = False
) -> Grammar:
    return Grammar(
        name="deepseek_dsml",
        terminals=dialect.terminals(),
        token_terminals=dialect.token_terminals(),
        transitions={
            (s, t): (n, tuple(_XML_EVENTS[e] for e in events))
            for s, t, n, events in dialect.rows(thinking, block_ends_turn)
        },
        codec=DsmlStreamingCodec(dialect) if stream_strings else DsmlParamCodec(dialect),
        strip_content_ws_with_tools=False,
        arg_structural_chars=frozenset(">"),
    )


class _DsmlToolParser(MarkupToolParser):
    dialect: ClassVar[Dialect]
    supports_required_and_named = False  # structural-tag models in vLLM
    forced_json_unless_strict = True
    reads_argument_runs = False  # vLLM re-reads only on a piece with `>`

    def convert_args(self, raw: str, partial: bool, name: str) -> str:
        converted = super().convert_args(raw, partial, name)
        if partial and may_unwrap(converted, self.tools, name):
            # held until the call closes: the wrapper may still be unwrapped
            # (test_deepseekv32_tool_parser.py::TestExtractToolCalls::
            # test_input_wrapper_repaired; vLLM 0.33.0 streamed `{"input": ` and stopped)
            return ""
        return unwrap_wrapper_args(converted, self.tools, name)

    block_ends_turn: ClassVar[bool] = True
    stream_strings: ClassVar[bool] = False

    def grammar_for(self, ctx: ParseContext) -> Grammar:
        thinking = self.dialect.reasoning and thinking_from_kwargs(ctx.chat_template_kwargs or {})
        return dsml_tool_grammar(self.dialect, thinking, self.block_ends_turn, self.stream_strings)


@tool_parser("deepseek_v32")
class DeepSeekV32ToolParser(_DsmlToolParser):
    name = "deepseek_v32"
    dialect = V32
    stream_strings = True
    grammar = dsml_tool_grammar(V32, False, True, True)


@tool_parser("deepseek_v4")
class DeepSeekV4ToolParser(OrphanInvokeGate, _DsmlToolParser):
    """V4 follows vLLM's newer V4 tests (docs/deviations.md): text after a closed tool block
    is content, and a bare invoke needs a declared tool and its closing tag (dsml_orphans)."""

    name = "deepseek_v4"
    dialect = V4
    block_ends_turn = False
    stream_strings = True
    invoke_prefix = V4.invoke_prefix
    invoke_end = V4.invoke_end
    grammar = dsml_tool_grammar(V4, True, False, True)
    # Text after the tool block waits in "dc" behind the calls of the same delta.
    one_shot_keeps_deferred = True


@tool_parser("deepseek_v41")
class DeepSeekV41ToolParser(_DsmlToolParser):
    name = "deepseek_v41"
    dialect = V41
    grammar = dsml_tool_grammar(V41, True)
