"""Mistral tool calls, in the format of the tokenizer's version.

* pre-v11 tokenizers (no `[ARGS]` token; mistral-common version < 11):
  `[TOOL_CALLS][{"name": ..., "arguments": {...}}, ...]`. Streaming follows the JSON with an
  event scanner and a small state machine, sending the name whole and the arguments as the raw
  text the model wrote (first chunk left-stripped).
* v11+ tokenizers: `[TOOL_CALLS]NAME{args}` / `[TOOL_CALLS]NAME[ARGS]{args}`, parsed by
  `engines/mistral_v11.py`.

vLLM 0.33.0 decides the format by the tokenizer alone, so on a pre-v11 tokenizer the v11 shape
is content (one-shot) or nothing (streaming). Following vLLM's parser tests, which assert the v11
shape is a call, a pre-v11 parser that finds no JSON call after `[TOOL_CALLS]` but sees
`NAME{` / `NAME[ARGS]` / a bare `NAME` there reads the output as v11 (docs/deviations.md).
Ids are Mistral's: 9 random alphanumeric characters.
"""

from __future__ import annotations

import json
import re
import secrets
import string
import weakref
from typing import Any, ClassVar

from tokenfront.parsers.base import (
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCalls,
    JSONState,
    ToolCall,
)
from tokenfront.parsers.engines import json_events, mistral_v11
from tokenfront.parsers.engines.chunk_pieces import merge_deltas
from tokenfront.parsers.engines.json_calls import JsonToolParser, dumps, no_calls
from tokenfront.parsers.registry import tool_parser
from tokenfront.tokenization.mistral import is_mistral_tokenizer

BOT = "[TOOL_CALLS]"
_ALNUM = string.ascii_letters + string.digits
_ARRAY_RE = re.compile(r"\[{.*}\]", re.DOTALL)
# After `[TOOL_CALLS]` on a pre-v11 tokenizer: output that reads as v11 (see module doc) ...
_V11_SHAPE = re.compile(r"\s*[A-Za-z0-9_][\w.\-]*(?:\{|\[ARGS\]|\s*$)")
# ... and a stream prefix that may still become it (a name, maybe a partial `[ARGS]` or the
# whitespace of a bare name at the end of the output).
_V11_PENDING = re.compile(r"[A-Za-z0-9_][\w.\-]*(?:\s+|\[(?:A(?:R(?:G(?:S)?)?)?)?)?")
_LEXERS: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()

# Streaming phases (vLLM's StreamingState names).
WAIT_START = "WAITING_FOR_TOOL_START"
WAIT_KEY = "WAITING_FOR_TOOL_KEY"
NAME = "PARSING_NAME"
NAME_DONE = "PARSING_NAME_COMPLETED"
WAIT_ARGS = "WAITING_FOR_ARGUMENTS_START"
ARGS = "PARSING_ARGUMENTS"
ARGS_DONE = "PARSING_ARGUMENTS_COMPLETED"
TOOL_DONE = "TOOL_COMPLETE"
ALL_DONE = "ALL_TOOLS_COMPLETE"

# Where to cut the delta in each phase, so each piece's events apply to the right phase:
# (stop after N "{", N "}", N "]", N ":", N ",")  (-1 = never).
_SPLITS: dict[str, tuple[int, int, int, int, int]] = {
    WAIT_START: (1, -1, -1, -1, -1),
    WAIT_KEY: (1, 1, -1, 1, -1),
    NAME: (-1, 1, 1, -1, 1),
    WAIT_ARGS: (1, 1, -1, -1, -1),
    ARGS: (-1, 1, -1, -1, -1),
    ARGS_DONE: (-1, 1, 1, -1, -1),
    NAME_DONE: (-1, 1, 1, -1, -1),
    TOOL_DONE: (1, -1, 1, -1, -1),
}


def mistral_tool_call_id() -> str:
    """Mistral's id format: 9 random alphanumeric characters."""
    return "".join(secrets.choice(_ALNUM) for _ in range(9))


def _split(text: str, limits: tuple[int, int, int, int, int]) -> tuple[str, str]:
    counters = list(limits)
    marks = "{}]:,"
    for i, ch in enumerate(text):
        k = marks.find(ch)
        if k >= 0:
            counters[k] -= 1
            if counters[k] == 0:
                return text[: i + 1], text[i + 1 :]
    return text, ""


def is_pre_v11(tokenizer: Any, vocab_id: Any) -> bool:
    """vLLM's rule: mistral-common version < 11, else no `[ARGS]` token in the vocabulary."""
    if is_mistral_tokenizer(tokenizer):
        return int(tokenizer.version) < 11
    return vocab_id(mistral_v11.ARGS_MARK) is None


def v11_lexer(tokenizer: Any) -> Any:
    """The v11 marker lexer of a tokenizer (built once per tokenizer)."""
    try:
        lexer = _LEXERS.get(tokenizer)
    except TypeError:  # not weak-referenceable: not cached
        return mistral_v11.build_lexer(tokenizer)
    if lexer is None:
        lexer = _LEXERS[tokenizer] = mistral_v11.build_lexer(tokenizer)
    return lexer


def _calls_from_json(parsed: Any) -> list[tuple[str, str]]:
    """(name, arguments) of each call object in the decoded JSON after the marker."""
    if isinstance(parsed, dict):
        parsed = [parsed]
    if not isinstance(parsed, list):
        return []
    calls: list[tuple[str, str]] = []
    for item in parsed:
        if not isinstance(item, dict) or not ("name" in item or "arguments" in item):
            continue
        name = item.get("name")
        args = item.get("arguments")
        if args is None:
            args = "{}"
        elif not isinstance(args, str):
            args = dumps(args)
        calls.append((name if isinstance(name, str) else "", args))
    return calls


@tool_parser("mistral")
class MistralToolParser(JsonToolParser):
    name = "mistral"
    tool_call_id_type = "mistral"
    # vLLM routes Mistral through its engine adapter: composed without text accumulation,
    # tool_choice="none" still runs the parser, and required/named use this format too.
    engine_based: ClassVar[bool] = True
    supports_required_and_named: ClassVar[bool] = False

    def __init__(self, tokenizer: Any, ctx: Any) -> None:
        super().__init__(tokenizer, ctx)
        self.bot_id = self.vocab_id(BOT)
        if self.bot_id is None:
            raise RuntimeError("Mistral parser could not locate the tool call token in the tokenizer!")
        self.pre_v11 = is_pre_v11(tokenizer, self.vocab_id)

    def _suppressed(self) -> bool:
        return self.ctx.tool_choice == "none" and bool(self.ctx.tools)

    def _v11_extract(self, text: str) -> ExtractedToolCalls:
        return mistral_v11.extract(
            v11_lexer(self.tokenizer), text, mistral_tool_call_id, self.ctx.tool_named,
            suppress=self._suppressed(),
        )

    def _guided(self) -> bool:
        choice = self.ctx.tool_choice
        return choice == "required" or isinstance(choice, dict)

    # ── one-shot ──────────────────────────────────────────────────────────
    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        if not self.pre_v11:
            return self._v11_extract(text)
        if self._suppressed():
            return no_calls(text)
        content: str | None = None
        if BOT in text:
            content, *segments = text.split(BOT)
            body = next((seg.strip() for seg in segments if seg.strip()), "")
        elif self._guided():
            body = text.strip()
        else:
            return no_calls(text)
        parsed: Any
        try:
            parsed, _ = json.JSONDecoder().raw_decode(body)
        except json.JSONDecodeError:
            try:
                parsed = json.loads(_ARRAY_RE.findall(body)[0])
            except (IndexError, json.JSONDecodeError):
                parsed = None
        calls = _calls_from_json(parsed)
        if not calls:
            if BOT in text and _V11_SHAPE.match(text.split(BOT, 1)[1]):
                return self._v11_extract(text)
            return no_calls(body)
        return ExtractedToolCalls(
            tools_called=True,
            tool_calls=[
                ToolCall(name=name, arguments=args, id=mistral_tool_call_id())
                for name, args in calls
            ],
            content=content if content and content.strip() else None,
        )

    # ── streaming ─────────────────────────────────────────────────────────
    def initial_state(self) -> JSONState:
        state = super().initial_state()
        state.update(
            started=False, phase=WAIT_START, json=json_events.new_scanner(), bare=False,
            new_tool=False, pending_name=None, pending_args=None, pending_id=None,
            probe=None, v11=None,
            # pre-v11: the output from `[TOOL_CALLS]` on, kept until the JSON path sends
            # something (`said`); read one-shot at the end when it never did
            tail=None, said=False,
        )
        if not self.pre_v11:
            state["v11"] = mistral_v11.new_state()
        return state

    def _v11_delta(self, st: JSONState, events: list[Any], *, finished: bool = False) -> Any:
        return mistral_v11.to_delta(
            st, events, mistral_tool_call_id, suppress=self._suppressed(), finished=finished
        )

    def finish(self, state: JSONState) -> DeltaMessage | None:
        st = state.get("v11")
        if st is None:
            return self._one_shot_tail(state)
        return self._v11_delta(
            st, mistral_v11.finish_events(v11_lexer(self.tokenizer), st), finished=True
        )

    def _one_shot_tail(self, state: JSONState) -> DeltaMessage | None:
        """Pre-v11, the end of a stream whose output after `[TOOL_CALLS]` sent nothing (the JSON
        never parsed as calls): what one-shot reads in it, the calls of its regex fallback or
        the text as content. vLLM 0.33.0 streams nothing there; its one-shot tests
        test_extract_tool_calls_pre_v11_regex_fallback / _regex_fallback_fails assert the call /
        the content (docs/deviations.md). A required / named stream without the marker (read
        as a bare JSON list) keeps 0.33.0's silence: no test asks otherwise."""
        tail = state.get("tail")
        if not tail or not tail.startswith(BOT) or state.get("said") or self._suppressed():
            return None
        state["tail"] = None
        result = self.extract_tool_calls(tail)
        if result.tool_calls:
            return DeltaMessage(
                tool_calls=[
                    call.as_delta(index, call.id or mistral_tool_call_id())
                    for index, call in enumerate(result.tool_calls)
                ]
            )
        return DeltaMessage(content=result.content) if result.content else None

    def _keep_tail(self, state: JSONState, delta_text: str, has_bot: bool) -> None:
        tail = state["tail"]
        if tail is None:
            if BOT in delta_text:
                delta_text = BOT + delta_text.partition(BOT)[2]
            elif has_bot:
                delta_text = BOT + delta_text
            state["tail"] = delta_text
        else:
            state["tail"] = tail + delta_text

    def _probe(
        self, state: JSONState, delta_text: str, has_bot: bool
    ) -> tuple[bool, DeltaMessage | None]:
        """Pre-v11, before any JSON: watch the text after `[TOOL_CALLS]` for the v11 shape.

        Returns (handled, delta); not handled means the legacy JSON path takes the delta.
        """
        before = ""
        after = delta_text
        if state["probe"] is None:  # the first `[TOOL_CALLS]`
            before, _, after = delta_text.partition(BOT)
            state["probe"] = ""
        earlier = state["probe"]
        if earlier is False:
            return False, None
        text = earlier + after
        stripped = text.lstrip()
        pending = _V11_PENDING.fullmatch(stripped) if stripped else None
        if stripped and pending is None and not _V11_SHAPE.match(stripped):
            # Not v11: replay the held text through the JSON path, then this delta.
            state["probe"] = False
            if earlier.strip():
                self._advance(state, earlier, False)
            return False, None
        if not stripped or pending is not None:
            state["probe"] = text
            return True, DeltaMessage(content=before) if before else None
        state["probe"] = False
        st = state["v11"] = mistral_v11.new_state()
        events = mistral_v11.feed(v11_lexer(self.tokenizer), st, BOT + text)
        delta = self._v11_delta(st, events)
        if before:
            delta = delta or DeltaMessage()
            delta.content = before + (delta.content or "")
        return True, delta

    def step(
        self,
        state: JSONState,
        previous_text: str,
        current_text: str,
        delta_text: str,
        delta_ids: list[int],
    ) -> DeltaMessage | None:
        if state["v11"] is not None and not state["started"]:
            state["started"] = True  # a v11 tokenizer: everything goes through the v11 parser
        has_bot = self.bot_id in delta_ids or BOT in delta_text
        if has_bot:
            state["started"] = True
        elif not state["started"] and delta_text and self._guided():
            state["started"] = True
        if not state["started"]:
            return DeltaMessage(content=delta_text)
        if state["v11"] is None and not state["said"]:
            self._keep_tail(state, delta_text, has_bot)
        try:
            if state["v11"] is not None:
                lexer = v11_lexer(self.tokenizer)
                return self._v11_delta(
                    state["v11"], mistral_v11.feed(lexer, state["v11"], delta_text)
                )
            if state["phase"] == WAIT_START and (has_bot or isinstance(state["probe"], str)):
                handled, delta = self._probe(state, delta_text, has_bot)
                if handled:
                    return delta
            return self._advance(state, delta_text, has_bot)
        except Exception:
            return None

    def _apply_events(self, state: JSONState, events: list[json_events.JSONEvent]) -> None:
        for prefix, event, value in events:
            if prefix == "" and event == "start_map":
                state["bare"] = True
            if state["bare"]:
                prefix = f"item.{prefix}" if prefix else "item"
            if prefix == "item" and event == "start_map":
                state["phase"] = WAIT_KEY
                state["new_tool"] = True
            if prefix == "item" and event == "map_key" and value == "name":
                state["phase"] = NAME
            if prefix == "item.name" and event == "string":
                state["pending_name"] = value
                state["phase"] = NAME_DONE
            if prefix == "item" and event == "map_key" and value == "arguments":
                state["phase"] = WAIT_ARGS
            if prefix == "item.arguments" and event == "start_map":
                state["phase"] = ARGS
            if prefix == "item.arguments" and event == "end_map":
                state["phase"] = ARGS_DONE
            if prefix == "item.arguments" and event == "string":
                state["pending_args"] = value
            if prefix == "item" and event == "end_map":
                state["phase"] = ALL_DONE if state["bare"] else TOOL_DONE
            if prefix == "" and event == "end_array":
                state["phase"] = ALL_DONE

    def _advance(self, state: JSONState, delta_text: str, has_bot: bool) -> DeltaMessage | None:
        content: str | None = None
        calls: list[DeltaToolCall] = []
        current = DeltaToolCall(index=state["tool"], type="function")
        modified = False
        if has_bot and json_events.begun(state["json"]) and BOT in delta_text:
            # a later `[TOOL_CALLS]` once the JSON has begun: as one token per chunk reads it,
            # the marker's own delta adds nothing and the text on each side is a delta of its own
            parts = delta_text.split(BOT)
            return merge_deltas([self._advance(state, part, False) for part in parts if part])
        if has_bot:
            if not delta_text.startswith(BOT):
                content = delta_text.split(BOT)[0]
            delta_text = "".join(delta_text.split(BOT)[1:])

        piece = ""
        failed_before = state["json"]["failed"]
        while delta_text:
            phase_before = state["phase"]
            if phase_before == ALL_DONE:
                content = delta_text
                delta_text = ""
                state["said"] = True
            else:
                piece, delta_text = _split(delta_text, _SPLITS[phase_before])
                try:
                    events = json_events.feed(state["json"], piece)
                except Exception:
                    if failed_before:
                        # broken in an earlier delta: vLLM's dead JSON reader loses this
                        # whole delta, the text before a `[TOOL_CALLS]` in it too
                        return None
                    # the JSON broke in this delta: what it held before the break still goes
                    # out (the same in any chunking; docs/deviations.md); the stream's end
                    # reads the rest one-shot
                    break
                self._apply_events(state, events)

            if state["new_tool"]:
                state["new_tool"] = False
                if modified:
                    self._emit(state, current, calls)
                modified = False
                state["tool"] += 1
                state["streamed"].append("")
                state["prev"].append({})
                state["pending_id"] = mistral_tool_call_id()
                current = DeltaToolCall(index=state["tool"], type="function")
            if state["pending_name"] is not None:
                modified = True
                current.name = state["pending_name"]
                state["prev"][state["tool"]]["name"] = state["pending_name"]
                state["pending_name"] = None
            if state["pending_args"] is not None:
                modified = True
                current.arguments = state["pending_args"]
                state["pending_args"] = None
            if state["phase"] == NAME_DONE:
                state["phase"] = WAIT_KEY
            if state["phase"] in (ARGS, ARGS_DONE):
                if state["phase"] == ARGS_DONE:
                    state["phase"] = WAIT_KEY
                modified = True
                current.arguments = (current.arguments or "") + piece
                if phase_before != ARGS:
                    # the piece opening the arguments may hold the key's `:` too (a chunk of
                    # several tokens): only the text from their `{` on is arguments
                    current.arguments = current.arguments.lstrip(" \t\r\n:")

        if modified:
            self._emit(state, current, calls)
        if calls:
            state["said"] = True
        if state["said"]:
            state["tail"] = None
        if content or calls:
            return DeltaMessage(content=content or None, tool_calls=calls)
        if state["phase"] == ALL_DONE:
            return DeltaMessage()
        return None

    def remaining_args(self, state: JSONState) -> str:
        # vLLM asks its engine adapter, whose own call list stays empty: nothing to add.
        return ""

    def _emit(self, state: JSONState, call: DeltaToolCall, calls: list[DeltaToolCall]) -> None:
        if state["pending_id"] is not None:
            call.id = state["pending_id"]
            state["pending_id"] = None
        if call.arguments is not None:
            index = state["tool"]
            state["streamed"][index] += call.arguments
            state["prev"][index]["arguments"] = state["streamed"][index]
        calls.append(call)
