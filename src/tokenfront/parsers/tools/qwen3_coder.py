"""Qwen3-Coder XML tool calls (`qwen3_coder`, `qwen3_xml`).

    <tool_call>
    <function=NAME>
    <parameter=KEY>
    VALUE
    </parameter>
    </function>
    </tool_call>

One wrapping newline of each value is markup; values are typed from the tool schema.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from tokenfront.parsers.base import DeltaMessage, JSONState
from tokenfront.parsers.engines.fences import (
    at_line_start,
    feed_fences,
    in_fence,
    new_fence_state,
)
from tokenfront.parsers.engines.last_read import LastDerived
from tokenfront.parsers.engines.markup_lexer import DROP, flush_lexer
from tokenfront.parsers.engines.param_walk import NestedParamCodec, Walk, walk_params
from tokenfront.parsers.engines.schema_types import tool_properties
from tokenfront.parsers.engines.xml_args import ArgCodec, EqualsParamCodec
from tokenfront.parsers.engines.xml_params import (
    E_ARGS,
    E_CALL_END,
    E_CALL_START,
    E_NAME,
    E_REASONING_END,
    S_ARGS,
    S_BETWEEN,
    S_CONTENT,
    S_NAME,
    S_PREAMBLE,
    S_REASONING,
    Event,
    Grammar,
    MarkupToolParser,
)
from tokenfront.parsers.registry import tool_parser
from tokenfront.parsers.tools.qwen3_values import fix_qwen3_values

# Marks a function name that no `>` closed (or a template placeholder): never a call.
_BAD_NAME = "\x00"


def function_markup_grammar(
    name: str, think: tuple[str, str], call: tuple[str, str], codec: ArgCodec | None = None
) -> Grammar:
    """The `<function=...>` / `<parameter=...>` grammar inside the given think and call wrappers."""
    return Grammar(
        name=name,
        terminals={
            "THINK_START": think[0], "THINK_END": think[1],
            "TOOL_START": call[0], "TOOL_END": call[1],
            "FUNC_PREFIX": "<function=", "FUNC_END": "</function>",
            "PARAM_START": "<parameter=", "PARAM_END": "</parameter>",
            "CLOSE_ANGLE": ">",
        },
        token_terminals={
            "THINK_START": think[0], "THINK_END": think[1],
            "TOOL_START": call[0], "TOOL_END": call[1],
        },
        transitions={
            (S_REASONING, "THINK_START"): (S_REASONING, ()),
            (S_REASONING, "THINK_END"): (S_CONTENT, (E_REASONING_END,)),
            (S_CONTENT, "THINK_END"): (S_CONTENT, ()),
            (S_REASONING, "TOOL_START"): (S_PREAMBLE, (E_REASONING_END, E_CALL_START)),
            (S_CONTENT, "TOOL_START"): (S_PREAMBLE, (E_REASONING_END, E_CALL_START)),
            # A bare <function=...> without the call wrapper still opens a call.
            (S_CONTENT, "FUNC_PREFIX"): (S_NAME, (E_CALL_START,)),
            (S_PREAMBLE, "TOOL_END"): (S_CONTENT, (E_CALL_END,)),
            (S_PREAMBLE, "FUNC_PREFIX"): (S_NAME, ()),
            (S_NAME, "CLOSE_ANGLE"): (S_ARGS, ()),
            # Unterminated names: the next structural tag closes the call.
            (S_NAME, "FUNC_END"): (S_BETWEEN, (E_CALL_END,)),
            (S_NAME, "TOOL_END"): (S_CONTENT, (E_CALL_END,)),
            (S_NAME, "TOOL_START"): (S_PREAMBLE, (E_CALL_END, E_CALL_START)),
            (S_NAME, "FUNC_PREFIX"): (S_NAME, (E_CALL_END, E_CALL_START)),
            (S_ARGS, "FUNC_END"): (S_BETWEEN, (E_CALL_END,)),
            (S_ARGS, "FUNC_PREFIX"): (S_NAME, (E_CALL_END, E_CALL_START)),
            (S_ARGS, "PARAM_START"): (S_ARGS, (E_ARGS,)),
            (S_ARGS, "PARAM_END"): (S_ARGS, (E_ARGS,)),
            (S_BETWEEN, "TOOL_END"): (S_CONTENT, ()),
            (S_BETWEEN, "TOOL_START"): (S_PREAMBLE, (E_CALL_START,)),
            (S_BETWEEN, "FUNC_PREFIX"): (S_NAME, (E_CALL_START,)),
        },
        codec=codec if codec is not None else EqualsParamCodec(),
        strip_trailing_reasoning_ws=False,
    )  # fmt: skip


_names: LastDerived[frozenset[str]] = LastDerived(frozenset)  # a tool's parameter names
QWEN3_CODER = function_markup_grammar(
    "qwen3", ("<think>", "</think>"), ("<tool_call>", "</tool_call>"), NestedParamCodec()
)


@tool_parser("qwen3_coder")
class Qwen3CoderToolParser(MarkupToolParser):
    """Qwen3 XML tool calls, with the rules vLLM's own tests assert beyond vLLM 0.33.0.

    Deviations from vLLM 0.33.0 (docs/deviations.md), all from vLLM's parser tests:

    * tool markup inside a parameter value stays in the value (`param_walk`); a `</function>`
      or `<function=` inside an unended value is held until the value ends with its own
      `</parameter>` (text) or otherwise (structure, as in 0.33.0): `_hold_markup`;
    * tool markup inside a fenced code example in content stays content (`fences`);
    * a `<tool_call>` without a function keeps the content after it.
    """
    grammar_cached_on_thinking_switch = True

    name = "qwen3_coder"
    grammar = QWEN3_CODER
    supports_required_and_named = False  # structural-tag model in vLLM
    forced_json_unless_strict = True
    content_around_unnamed_calls = True

    @property
    def codec(self) -> NestedParamCodec:
        """The grammar's codec, which takes the tool's parameter names."""
        codec = self.g.codec
        assert isinstance(codec, NestedParamCodec)
        return codec

    def initial_state(self, start: str = S_CONTENT) -> JSONState:
        state = super().initial_state(start)
        # qn/qb: the open call's name and body text (qp: body pieces not yet joined into
        # qb); nh: function markup inside an unended value and what came after it, held
        # (`_hold_markup`); fc: fenced-code state of the content.
        state.update(qn="", qb="", qp=[], nh=None, fc=new_fence_state())
        return state

    def _param_names(self, name: str) -> frozenset[str] | None:
        properties = tool_properties(self.tools, name.strip()) if name else None
        return _names.of(properties) if isinstance(properties, dict) and properties else None

    def convert_args(self, raw: str, partial: bool, name: str) -> str:
        converted = self.codec.convert(raw, partial, self._param_names(name))
        return fix_qwen3_values(converted, self.tools, name)

    def open_value(self, slot: dict[str, Any]) -> dict[str, Any] | None:
        return self.codec.open_value(slot["args"], self._param_names(slot["name"]))

    # -- text and terminals -----------------------------------------------------------------

    def feed(self, state: JSONState, text: str, ids: Sequence[int]) -> list[Event]:
        events = super().feed(state, text, ids)
        _body(state)  # the stream state keeps the body as one string
        return events

    def _emit(self, state: JSONState, text: str) -> list[Event]:
        if state.get("nh") is not None:
            return self._hold_markup(state, "", text)
        st = state["st"]
        if st == S_ARGS:
            state.setdefault("qp", []).append(text)
        elif st == S_NAME:
            state["qn"] += text
        elif st == S_CONTENT and text:
            feed_fences(state["fc"], text)
        return super()._emit(state, text)

    def _terminal(self, state: JSONState, terminal: str, text: str) -> list[Event]:
        if state.get("nh") is not None:
            return self._hold_markup(state, terminal, text)
        st = state["st"]
        if st == S_ARGS and terminal in _BODY_EXITS and not self.skip_tool_parsing:
            verdict = self._body_exit(state, terminal)
            if verdict == "text":
                return self._emit(state, text)
            if verdict == "held":
                return self._hold_markup(state, terminal, text)
        if st == S_CONTENT and terminal in _CALL_OPENERS and in_fence(state["fc"]):
            return self._emit(state, text)
        unterminated = (
            st == S_NAME
            and terminal != "CLOSE_ANGLE"
            and (S_NAME, terminal) in self.g.transitions
            and not (self.skip_reasoning_parsing and terminal in self.g.reasoning_markup)
        )
        events = super()._terminal(state, terminal, text)
        now = state["st"]
        if st == S_ARGS and now != S_ARGS:
            _clear_body(state)  # the call body ended
        if now == S_NAME and st != S_NAME:
            state["qn"] = ""
        elif now == S_ARGS and st == S_NAME:
            _clear_body(state)
        elif now == S_ARGS and st == S_ARGS and terminal in _PARAM_MARKUP:
            state.setdefault("qp", []).append(text)
        elif now == S_CONTENT and st != S_CONTENT:
            at_line_start(state["fc"])
        if unterminated:
            # `<function=bad_name` with no `>`: test_none_tool_calls_filtered.
            return [(E_NAME, _BAD_NAME, events[0][2] if events else state["ti"]), *events]
        return events

    def _walk(
        self, state: JSONState, more: str, final: bool = False, keep: bool = True
    ) -> tuple[str, Walk]:
        """The open call's body with `more` text after it, split into its parameters."""
        body = _body(state) + more
        names = self._param_names(state["qn"])
        return body, walk_params(body, names, final, self.codec.markup, keep=keep)

    def _body_exit(self, state: JSONState, terminal: str) -> str:
        """A `</function>` / `<function=` in a call body: structural, text, or held until the
        value it may belong to ends (the hold is opened)."""
        if state.pop("ns", False):
            return "structural"  # held markup read again after its value ended without a close
        _, walk = self._walk(state, self.g.terminals[terminal])
        if walk.tail == "none" or (
            terminal == "FUNC_PREFIX" and (walk.soft_end or walk.closed_call)
        ):
            # every value ended, or one ends at a `</parameter>` read as text or holds a
            # call's closer (the call was over there, as vLLM 0.33.0 reads it): a new call starts
            return "structural"
        if state.get("nt") == walk.value_start:
            return "text"
        state["nh"] = {
            "index": len(walk.params) - 1,  # the open value's
            "start": walk.value_start,
            "items": [],  # [terminal or "", text]
            "n": 0,  # characters held
            "last": "",  # the last terminal held
            "next": 0,  # the characters held at which to look for the value's end again
            "bare": terminal == "FUNC_END",  # a `</function>` with only whitespace after it
        }
        return "held"

    def _hold_markup(self, state: JSONState, terminal: str, text: str) -> list[Event]:
        """A `<function=` / `</function>` inside an unended value, and what follows it, held
        until it is known what the markup was: value text when the value ends with its own
        `</parameter>` (vLLM's tests of markup inside values); structure, as vLLM 0.33.0 reads
        it, when the next parameter ends the value or nothing does (a value cut off and
        followed by a fresh call), and as soon as call markup follows a `</function>` (after
        whitespace only) or a `<function=` follows a call closer the value never opened.

        The value's end is looked for at the terminals that can show it, each look costing a
        walk of the body: looks grow sparser as the body grows, and after `_HOLD_LIMIT`
        characters without an answer the held text is read as the value's text."""
        hold = state["nh"]
        items = hold["items"]
        items.append([terminal, text])
        hold["n"] += len(text)
        if items[1:] and (terminal not in _AFTER_CALL_END if terminal else text.strip(_WS)):
            hold["bare"] = False
        after_name = terminal == "CLOSE_ANGLE" and hold["last"] == "PARAM_START"
        if terminal:
            hold["last"] = terminal
        if hold["n"] >= _HOLD_LIMIT:
            return self._release_markup(state, limit=True)
        if terminal in _AFTER_CALL_END and items[1:] and hold["bare"]:
            return self._read_held(state, structural=True)
        if (terminal in _LOOK_AGAIN_AFTER or after_name) and hold["n"] >= hold["next"]:
            return self._release_markup(state, closer_first=terminal == "FUNC_PREFIX")
        return []

    def _release_markup(
        self,
        state: JSONState,
        final: bool = False,
        limit: bool = False,
        closer_first: bool = False,
    ) -> list[Event]:
        """Read the held text again if the walk shows what the held markup was (at `final`,
        the output ended: structure unless its value closed; `limit`: text when it cannot
        tell; `closer_first`: at a `<function=`, structure after a call closer the value never
        opened); else look again later."""
        hold = state["nh"]
        held = "".join(text for _, text in hold["items"])
        # a look ahead: the walks of the held text read again start with less of it
        body, walk = self._walk(state, held, final, keep=False)
        value = walk.params[hold["index"]]
        if value.closed:
            return self._read_held(state, structural=value.implicit)
        if final or (closer_first and walk.closed_call):
            return self._read_held(state, structural=True)
        if limit:
            return self._read_held(state, structural=False)
        hold["next"] = hold["n"] + max(_HOLD_STEP, len(body) // 16)
        return []

    def _read_held(self, state: JSONState, structural: bool) -> list[Event]:
        """Read the held items again, the held markup as structure or as value text."""
        hold = state["nh"]
        state["nh"] = None
        if structural:
            state["ns"] = True
        else:
            state["nt"] = hold["start"]  # this value's function markup is text
        events: list[Event] = []
        for terminal, text in hold["items"]:
            if terminal:
                events.extend(self._terminal(state, terminal, text))
            else:
                events.extend(self._emit(state, text))
        return events

    def finish_events(self, state: JSONState) -> list[Event]:
        events = self._end_events(state)
        events.extend(super().finish_events(state))
        return events

    def held_at_end(self, state: JSONState) -> DeltaMessage | None:
        if not state or state.get("nh") is None:
            return None
        return self.events_to_delta(state, self._end_events(state))

    def _end_events(self, state: JSONState) -> list[Event]:
        """The output ended: the text still being lexed, then the held markup read again."""
        events = self._items(state, self.c.scanner.flush(state["scan"]))
        events.extend(self._lexemes(state, flush_lexer(self.c.table, state["lex"])))
        events.extend(self._finish_held(state))
        return events

    def _finish_held(self, state: JSONState) -> list[Event]:
        """The output ended: held markup is read again (structure, unless its value closed)."""
        events: list[Event] = []
        while state.get("nh") is not None:
            events.extend(self._release_markup(state, final=True))
        return events

    def _accept_name(self, name: str) -> bool:
        # `<function={{ tc.name }}>` is an unrendered template, not a call:
        # test_jinja_template_phantom_tool_call_is_rejected_nonstreaming.
        if _BAD_NAME in name or ("{{" in name and "}}" in name):
            return False
        return super()._accept_name(name)


_WS = " \t\r\n"
# Terminals that leave a call body, open a call from content, or are parameter markup.
_BODY_EXITS = frozenset({"FUNC_END", "FUNC_PREFIX"})
_CALL_OPENERS = frozenset({"TOOL_START", "FUNC_PREFIX"})
_PARAM_MARKUP = frozenset({"PARAM_START", "PARAM_END"})
# Held markup: the terminals after which to look again (and a `>` after `<parameter=`); the
# most characters held, the least between two looks.
_LOOK_AGAIN_AFTER = frozenset({"FUNC_END", "FUNC_PREFIX", "TOOL_START", "TOOL_END"})
# ... of which those that show a call ended, after a closer the value holds unopened
_AFTER_CALL_END = frozenset({"FUNC_PREFIX", "TOOL_START", "TOOL_END"})
_HOLD_LIMIT = 2048
_HOLD_STEP = 32


# Attribute / spaced spellings of the call and parameter openers (`<function name="f">`,
# `<parameter = k>`): terminal -> the canonical terminal and text they stand for (qwen3_xml).
_ATTR_OPENERS = {
    "FUNC_ATTR": ("FUNC_PREFIX", "<function=", "<function name="),
    "FUNC_ATTR_SP": ("FUNC_PREFIX", "<function=", "<function name ="),
    "FUNC_EQ_SP": ("FUNC_PREFIX", "<function=", "<function ="),
    "PARAM_ATTR": ("PARAM_START", "<parameter=", "<parameter name="),
    "PARAM_ATTR_SP": ("PARAM_START", "<parameter=", "<parameter name ="),
    "PARAM_EQ_SP": ("PARAM_START", "<parameter=", "<parameter ="),
}
QWEN3_XML = replace(
    QWEN3_CODER,
    terminals={**QWEN3_CODER.terminals, **{k: v[2] for k, v in _ATTR_OPENERS.items()}},
)
# Where an attribute opener opens what its canonical form opens (elsewhere it is text).
_ATTR_STATES = {
    "FUNC_PREFIX": frozenset({S_CONTENT, S_PREAMBLE, S_BETWEEN}),
    "PARAM_START": frozenset({S_ARGS}),
}


def _attr_name(raw: str) -> str:
    """`"send" ` / ` 'to'` / ` send` -> the bare name."""
    name = raw.strip()
    if len(name) >= 2 and name[0] == name[-1] and name[0] in "\"'":
        name = name[1:-1].strip()
    return name


@tool_parser("qwen3_xml")
class Qwen3XmlToolParser(Qwen3CoderToolParser):
    """qwen3_xml: qwen3_coder's grammar; tool_choice "none" or no request tools leave the
    text alone (vLLM 0.33.0 dropped the call text; docs/deviations.md).

    Also from vLLM's `StreamingXMLToolCallParser` tests (tests/entrypoints/openai/
    tool_parsers/test_qwen3xml_tool_parser.py; vLLM 0.33.0 differs):

    * a `<tool_call>` in content opens a call only when the next tag is `<function=`;
      followed by another tag (`<tool_call>`, `</tool_call>`, parameter or reasoning markup)
      or by the end of the output it is text, kept with the text after it (streaming holds
      it until that tag or the end decides);
    * an output that ends inside a function name (`<function=get_wea`) makes no call;
    * the attribute and spaced spellings `<function name="f">`, `<function name='f' >`,
      `<function name = "f">`, `<function = f>` (and the same for `<parameter ...>`) are
      read as `<function=f>` / `<parameter=f>`.
    """

    grammar = QWEN3_XML
    keeps_text_without_tool_choice = True

    def _emit(self, state: JSONState, text: str) -> list[Event]:
        pending = state.get("po")
        if pending is not None:
            state["po"] = pending + text
            return []
        if state.get("pa") is not None:  # an attribute-spelled name, until its `>`
            state["pn"] += text
            return []
        return super()._emit(state, text)

    def _attr_terminal(self, state: JSONState, terminal: str, text: str) -> list[Event] | None:
        """Attribute-spelled openers and the name after one (None: not such a terminal)."""
        kind = state.get("pa")
        if kind is not None:
            if terminal == DROP:
                return []
            raw, state["pa"], state["pn"] = state["pn"], None, ""
            if terminal == "CLOSE_ANGLE":
                events = super()._emit(state, _attr_name(raw))
                events.extend(super()._terminal(state, terminal, text))
                return events
            events = super()._emit(state, raw)  # no `>`: the name stays as written
            events.extend(self._terminal(state, terminal, text))
            return events
        attr = _ATTR_OPENERS.get(terminal)
        if attr is None:
            return None
        canonical, canonical_text, _ = attr
        if state["st"] not in _ATTR_STATES[canonical] or self.skip_tool_parsing:
            return self._emit(state, text)
        events = self._terminal(state, canonical, canonical_text)
        if state["st"] in (S_NAME, S_ARGS):
            state["pa"], state["pn"] = canonical, ""
        return events

    def _terminal(self, state: JSONState, terminal: str, text: str) -> list[Event]:
        attr_events = self._attr_terminal(state, terminal, text)
        if attr_events is not None:
            return attr_events
        pending = state.get("po")
        if pending is not None:
            if terminal in (DROP, "CLOSE_ANGLE"):
                return self._emit(state, text if terminal != DROP else "")
            state["po"] = None
            if terminal == "FUNC_PREFIX":  # a real call: the opener's own text is markup
                events = super()._terminal(state, "TOOL_START", self.g.terminals["TOOL_START"])
                events.extend(super()._terminal(state, terminal, text))
                return events
            events = super()._emit(state, pending)
            events.extend(self._terminal(state, terminal, text))
            return events
        if (
            terminal == "TOOL_START"
            and state["st"] == S_CONTENT
            and state.get("nh") is None
            and not self.skip_tool_parsing
            and not in_fence(state["fc"])
        ):
            state["po"] = text  # held until the next tag shows what it is
            return []
        return super()._terminal(state, terminal, text)

    def _finish_held(self, state: JSONState) -> list[Event]:
        events = self._flush_pending(state)
        events.extend(super()._finish_held(state))  # may read text into a pending name again
        events.extend(self._flush_pending(state))
        if state["st"] == S_NAME and state["ti"] >= 0:
            # test_abort_mid_function_tag: the name never got its `>`
            events.append((E_NAME, _BAD_NAME, state["ti"]))
        return events

    def _flush_pending(self, state: JSONState) -> list[Event]:
        events: list[Event] = []
        if state.get("pa") is not None:
            raw, state["pa"], state["pn"] = state["pn"], None, ""
            events.extend(super()._emit(state, raw))
        pending = state.get("po")
        if pending is not None:  # test_tool_call_pending_truncated_stream: text after all
            state["po"] = None
            events.extend(super()._emit(state, pending))
        return events


def _body(state: JSONState) -> str:
    """The open call's body text: `qb` with the pieces appended since (joined once)."""
    parts = state.get("qp")
    if parts:
        state["qb"] += "".join(parts)
        parts.clear()
    return str(state["qb"])


def _clear_body(state: JSONState) -> None:
    state["qb"] = ""
    state["qp"] = []
    state["nt"] = None
