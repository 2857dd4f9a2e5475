"""Whole-output parsing with a checkpoint's `response_template` (vLLM's `hf` and `beam` parsers).

Unlike the reasoning-then-tools pipeline, one template scanner (`rtemplate_scan.py`) reads the
prompt's part of the assistant message and then the whole output, and its region events are
routed into the message:

* `thinking` text is reasoning when a reasoning parser is configured (dropped from stream deltas
  with `include_reasoning` false), else content; its delimiters never reach the client;
* `content` text is content;
* a `tool_calls` region becomes calls once it ends with its closer and its value holds a
  function name and arguments (arguments re-dumped as JSON when structured). A malformed region,
  or one cut off at the end of the output without its closer (when the field has one), gives no
  call. Without tool parsing (no tool parser, tool_choice "none", or auto choice off) the
  region, delimiters included, is content.
* streaming, a call whose name the opener already fixes (an opener capture or a literal in the
  field's `transform`) sends that name (with its id) as soon as the region opens, unless the
  same chunk already shows the region unusable; its arguments follow when the region closes and
  parses. A started call that then fails stays incomplete: its index is used, no arguments are
  ever sent. A name taken from the region body is sent with the arguments. Name and arguments
  of one chunk are one tool-call delta. A tool region the prompt left open counts as opened by
  the first chunk.

When the output's last token is a tool closer the engine stopped on (its text left out), the
closer is put back first, so the call is not taken for a cut-off one.
At the end of a non-empty output the rest of a cut closer is supplied when only the next
message's start anchor is missing from it, the held text is flushed and the open region closed.
An output without any text never finalises (nothing is emitted).

The streaming state is the scanner's JSON state plus the next tool index, the call whose name
was sent (`pend`: index and name), the indices left incomplete and a prompt-opened tool region
still to replay; the pipeline keeps it in its own state dict.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from tokenfront.parsers.base import (
    DeltaMessage,
    DeltaToolCall,
    ParseContext,
    ToolCall,
    make_tool_call_id,
    merge_tool_deltas,
)
from tokenfront.parsers.engines import rtemplate_scan as scan
from tokenfront.parsers.engines.rtemplate_spec import (
    CONTENT,
    THINKING,
    TOOLS,
    Template,
    check_serving,
    serving_template,
    tokenizer_template,
)
from tokenfront.parsers.engines.rtemplate_values import opener_call_name, tool_properties
from tokenfront.tokenization.vocab import token_id

JSONState = dict[str, Any]


def decode_prompt(tokenizer: Any, token_ids: Sequence[int] | None) -> str:
    """The prompt text as the parser reads it (special tokens kept, no clean-up, no spaces)."""
    if not token_ids:
        return ""
    try:
        return str(tokenizer.decode(
            list(token_ids),
            skip_special_tokens=False,
            clean_up_tokenization_spaces=False,
            spaces_between_special_tokens=False,
        ))
    except TypeError:
        return str(tokenizer.decode(list(token_ids), skip_special_tokens=False))


# vLLM's text when a response-template parser is built on a tokenizer without the metadata.
MISSING_TEMPLATE = "Parsing with a response template requires `response_template` metadata in the tokenizer configuration"


def check_tokenizer(tokenizer: Any, reasoning_name: str | None, tool_name: str | None) -> None:
    """vLLM's start-up check: the tokenizer carries a valid template with the needed fields."""
    template = tokenizer_template(tokenizer)
    if template is None:
        selected = " ".join(
            f"{flag} {name}"
            for flag, name in (("--reasoning-parser", reasoning_name), ("--tool-call-parser", tool_name))
            if name
        )
        raise ValueError(f"{selected} requires `response_template` metadata in the tokenizer configuration")
    try:
        fields = check_serving(template).fields
    except (TypeError, ValueError) as exc:
        raise ValueError(f"Invalid response_template metadata: {exc}") from exc
    if reasoning_name and THINKING not in fields:
        raise ValueError(f"--reasoning-parser {reasoning_name} requires a response_template with a thinking field")
    if tool_name and TOOLS not in fields:
        raise ValueError(f"--tool-call-parser {tool_name} requires a response_template with a tool_calls field")


def tool_parsing_enabled(ctx: ParseContext, enable_auto_tools: bool) -> bool:
    """Whether tool regions are read as calls for this request (given a tool parser)."""
    choice = ctx.effective_tool_choice
    if choice == "none":
        return False
    if choice == "required" or isinstance(choice, dict):
        return True
    return enable_auto_tools and choice == "auto"


def _calls_of(value: Any) -> list[tuple[str, str]]:
    """(name, arguments JSON) of each call in a tool region value; none if any is incomplete."""
    items = value if isinstance(value, list) else [value]
    calls: list[tuple[str, str]] = []
    for item in items:
        function = item.get("function") if isinstance(item, dict) else None
        if not isinstance(function, dict):
            return []
        name, arguments = function.get("name"), function.get("arguments")
        if not isinstance(name, str) or not name or arguments is None:
            return []
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False)
        calls.append((name, arguments))
    return calls


class _Delta:
    def __init__(self) -> None:
        self.reasoning: list[str] = []
        self.content: list[str] = []
        self.calls: list[DeltaToolCall] = []


class ResponseTemplateOutput:
    """One request's template parser: `parse` (one-shot) and `stream` (per chunk)."""

    def __init__(
        self,
        tokenizer: Any,
        ctx: ParseContext,
        *,
        parse_reasoning: bool,
        parse_tools: bool,
        id_type: str = "random",
    ) -> None:
        spec = tokenizer_template(tokenizer)
        if spec is None:
            raise ValueError(MISSING_TEMPLATE)
        self.template: Template = serving_template(spec)
        self.tokenizer = tokenizer
        self.ctx = ctx
        self.parse_reasoning = parse_reasoning
        self.parse_tools = parse_tools
        self.id_type = id_type
        self.tools = tool_properties(ctx.tools)

    # ---- one-shot -----------------------------------------------------------------------------
    def parse(
        self, text: str, token_ids: Sequence[int] = ()
    ) -> tuple[str | None, str | None, list[ToolCall] | None]:
        state = self._new_state()
        text = self._with_stop_closer(text, token_ids)
        out = self._feed(state, text, finished=True, include_reasoning=True, stream_names=False)
        if out is None:
            return None, None, None
        calls = []
        for number, call in enumerate(out.calls):
            call_id = None
            if self.id_type != "random":
                call_id = make_tool_call_id(self.id_type, call.name, self.ctx.history_tool_call_cnt + number)
            calls.append(ToolCall(name=call.name or "", arguments=call.arguments or "", id=call_id))
        return "".join(out.reasoning) or None, "".join(out.content) or None, calls or None

    # ---- streaming ----------------------------------------------------------------------------
    def stream(
        self, state: JSONState | None, text: str, finished: bool, token_ids: Sequence[int] = ()
    ) -> tuple[DeltaMessage | None, JSONState]:
        if state is None:
            state = self._new_state()
        text = self._with_stop_closer(text, token_ids)
        out = self._feed(
            state, text, finished=finished, include_reasoning=self.ctx.include_reasoning, stream_names=True
        )
        if out is None:
            return None, state
        return DeltaMessage(
            reasoning="".join(out.reasoning) or None,
            content="".join(out.content) or None,
            tool_calls=merge_tool_deltas(out.calls),
        ), state

    # ---- reasoning end ------------------------------------------------------------------------
    def prompt_ends_reasoning(self, prompt_token_ids: Sequence[int], thinking_disabled: bool) -> bool:
        """Whether generation after this prompt starts past the reasoning."""
        thinking = self.template.fields.get(THINKING)
        if thinking is None:
            return True
        if thinking.repeats:
            return False
        state, events = scan.start(self.template, decode_prompt(self.tokenizer, prompt_token_ids), {})
        active: str | None = None
        for event in events:
            if event["type"] == "region_open":
                active = event["field"]
            elif event["type"] in ("region_close", "region_malformed"):
                if event["field"] == THINKING:
                    return True
                active = None
        if active in (CONTENT, TOOLS):
            return True
        # A NUL never occurs in model output: feeding one only resolves held delimiters.
        for event in scan.feed(self.template, state, "\0", {}):
            kind, name = event["type"], event["field"]
            if kind == "region_open" and name in (CONTENT, TOOLS) and event["end"] > event["start"]:
                return True
            if name == THINKING:
                if kind == "region_open":
                    return False
                if kind in ("region_close", "region_malformed"):
                    return True
        if active == THINKING:
            return False
        return thinking_disabled

    # ---- internals ----------------------------------------------------------------------------
    def _new_state(self) -> JSONState:
        prompt = decode_prompt(self.tokenizer, self.ctx.prompt_token_ids)
        scanner, events = scan.start(self.template, prompt, self.tools)
        # A tool region the prompt leaves open is replayed (as opened) with the first chunk.
        replay = None
        for event in reversed(events):
            if event["field"] == TOOLS and event["type"] != "region_chunk":
                if event["type"] == "region_open":
                    replay = {"type": "region_open", "field": TOOLS, "caps": event.get("caps") or {},
                              "start": event["start"], "end": event["end"], "delim": ""}
                break
        return {
            "s": scanner, "pe": scan.end_offset(scanner), "next": 0, "fin": False,
            "pend": None, "inc": [], "replay": replay,
        }

    def _with_stop_closer(self, text: str, token_ids: Sequence[int]) -> str:
        """`text` with the tool closer its last token stands for put back (a stop token's text
        is left out of the output)."""
        tool = self.template.fields.get(TOOLS)
        if not token_ids or tool is None or not tool.close_literals:
            return text
        last = token_ids[-1]
        for closer in tool.close_literals:
            if token_id(self.tokenizer, closer) == last and not text.endswith(closer):
                return text + closer
        return text

    def _feed(
        self, state: JSONState, text: str, *, finished: bool, include_reasoning: bool, stream_names: bool
    ) -> _Delta | None:
        if state["fin"]:
            return None
        out = _Delta()
        scanner = state["s"]
        events = scan.feed(self.template, scanner, text, self.tools)
        self._route(state, events, out, include_reasoning, stream_names)
        if finished:
            state["fin"] = True
            if scan.end_offset(scanner) > state["pe"]:
                events = scan.feed(self.template, scanner, self._closer_rest(scanner), self.tools)
                events += scan.finish(self.template, scanner, self.tools)
                self._route(state, events, out, include_reasoning, stream_names)
        if not "".join(out.reasoning) and not "".join(out.content) and not out.calls:
            return None
        return out

    def _closer_rest(self, scanner: JSONState) -> str:
        """The end of a closer the output stopped inside, when that end is a start anchor."""
        text = scan.open_region_text(scanner)
        if text is None:
            return ""
        f = self.template.fields[scanner["cur"]]
        for closer in f.close_literals:
            for anchor in self.template.anchor_literals:
                if not anchor or closer == anchor or not closer.endswith(anchor):
                    continue
                for cut in range(len(closer) - 1, len(closer) - len(anchor) - 1, -1):
                    if text.endswith(closer[:cut]):
                        return closer[cut:]
        return ""

    def _route(
        self,
        state: JSONState,
        events: list[dict[str, Any]],
        out: _Delta,
        include_reasoning: bool,
        stream_names: bool,
    ) -> None:
        if self.parse_tools and state.get("replay"):
            events = [state["replay"], *events]
        state["replay"] = None
        text_end = scan.end_offset(state["s"])
        doomed = self._doomed_opens(events, text_end)
        for number, event in enumerate(events):
            name = event["field"]
            if name == TOOLS:
                self._route_tool(state, event, out, text_end, stream_names and number not in doomed)
            elif event["type"] == "region_chunk":
                if name == THINKING and self.parse_reasoning:
                    if include_reasoning:
                        out.reasoning.append(event["text"])
                elif name in (THINKING, CONTENT):
                    out.content.append(event["text"])

    def _unusable(self, event: dict[str, Any], text_end: int) -> bool:
        """A tool region end that gives no call: malformed, or cut off at the end of the text
        without the closer its field has."""
        if event["type"] == "region_malformed":
            return True
        return (
            event["type"] == "region_close"
            and self.template.fields[TOOLS].closer is not None
            and event["start"] == text_end
        )

    def _doomed_opens(self, events: list[dict[str, Any]], text_end: int) -> set[int]:
        """Positions of tool region opens whose region ends unusable within the same events."""
        doomed: set[int] = set()
        opened: int | None = None
        for number, event in enumerate(events):
            if event["field"] != TOOLS:
                continue
            if event["type"] == "region_open":
                opened = number
            elif event["type"] != "region_chunk":
                if opened is not None and self._unusable(event, text_end):
                    doomed.add(opened)
                opened = None
        return doomed

    def _route_tool(
        self, state: JSONState, event: dict[str, Any], out: _Delta, text_end: int, send_name: bool
    ) -> None:
        kind = event["type"]
        if not self.parse_tools:
            out.content.append(event["text"] if kind == "region_chunk" else event["delim"])
            return
        if kind == "region_open":
            name = opener_call_name(self.template.fields[TOOLS], event.get("caps") or {}) if send_name else None
            if name is not None:
                index = self._take_index(state)
                state["pend"] = [index, name]
                out.calls.append(self._call(index, name, None))
            return
        if kind == "region_chunk":
            return
        calls = [] if self._unusable(event, text_end) else _calls_of(event.get("value"))
        pending = state["pend"]
        state["pend"] = None
        if pending is not None:
            index, name = pending
            if len(calls) == 1 and calls[0][0] == name:
                out.calls.append(DeltaToolCall(index=index, arguments=calls[0][1]))
            else:
                state["inc"].append(index)
            return
        for name, arguments in calls:
            out.calls.append(self._call(self._take_index(state), name, arguments))

    @staticmethod
    def _take_index(state: JSONState) -> int:
        index = int(state["next"])
        state["next"] = index + 1
        return index

    def _call(self, index: int, name: str, arguments: str | None) -> DeltaToolCall:
        return DeltaToolCall(
            index=index,
            id=make_tool_call_id(self.id_type, name, self.ctx.history_tool_call_cnt + index),
            type="function",
            name=name,
            arguments=arguments,
        )
