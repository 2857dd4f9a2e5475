"""Mistral tool calls in the pre-v11 format: `[TOOL_CALLS][{"name": ..., "arguments": {...}}, ...]`.

Both tokenizers this project serves for Mistral (the Hugging Face `tokenizer.json` and the
mistral-common tekken v3 file) predate the v11 `[ARGS]` format, so this is the format vLLM
parses for them. Ids are Mistral's: 9 random alphanumeric characters.

Streaming follows the JSON with an event scanner and a small state machine, sending the name
whole and the arguments as the raw text the model wrote (first chunk left-stripped).
"""

from __future__ import annotations

import json
import re
import secrets
import string
from typing import Any, ClassVar

from tokenfront.parsers.base import (
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCalls,
    JSONState,
    ToolCall,
)
from tokenfront.parsers.engines import json_events
from tokenfront.parsers.engines.json_calls import JsonToolParser, dumps, no_calls
from tokenfront.parsers.registry import tool_parser

BOT = "[TOOL_CALLS]"
_ALNUM = string.ascii_letters + string.digits
_ARRAY_RE = re.compile(r"\[{.*}\]", re.DOTALL)

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

    def _guided(self) -> bool:
        choice = self.ctx.tool_choice
        return choice == "required" or isinstance(choice, dict)

    # ── one-shot ──────────────────────────────────────────────────────────
    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        if self.ctx.tool_choice == "none" and self.ctx.tools:
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
        )
        return state

    def step(
        self,
        state: JSONState,
        previous_text: str,
        current_text: str,
        delta_text: str,
        delta_ids: list[int],
    ) -> DeltaMessage | None:
        has_bot = self.bot_id in delta_ids or BOT in delta_text
        if has_bot:
            state["started"] = True
        elif not state["started"] and delta_text and self._guided():
            state["started"] = True
        if not state["started"]:
            return DeltaMessage(content=delta_text)
        try:
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
        if has_bot:
            if not delta_text.startswith(BOT):
                content = delta_text.split(BOT)[0]
            delta_text = "".join(delta_text.split(BOT)[1:])

        piece = ""
        while delta_text:
            phase_before = state["phase"]
            if phase_before == ALL_DONE:
                content = delta_text
                delta_text = ""
            else:
                piece, delta_text = _split(delta_text, _SPLITS[phase_before])
                self._apply_events(state, json_events.feed(state["json"], piece))

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
                    current.arguments = current.arguments.lstrip()

        if modified:
            self._emit(state, current, calls)
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
