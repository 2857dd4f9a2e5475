"""Jamba tool calls: `<tool_calls>[{"name": ..., "arguments": {...}}, ...]</tool_calls>`."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import partial_json_parser

from tokenfront.parsers.base import (
    DeltaMessage,
    ExtractedToolCalls,
    JSONState,
    ToolCall,
    random_tool_call_id,
)
from tokenfront.parsers.engines.chunk_pieces import token_pieces
from tokenfront.parsers.engines.json_calls import (
    ALLOW_ALL,
    ALLOW_NO_PARTIAL_STR,
    JsonToolParser,
    MalformedJSON,
    args_delta,
    dumps,
    intermediate_diff,
    is_complete_json,
    name_delta,
    no_calls,
)
from tokenfront.parsers.engines.lazy_blocks import lazy_bodies
from tokenfront.parsers.engines.shadow_stream import (
    active_state,
    client_remaining,
    content_step,
    shadow_finish,
    shadow_step,
)
from tokenfront.parsers.registry import tool_parser

START = "<tool_calls>"
END = "</tool_calls>"


def _healthy(tokens: JSONState, joined: dict[str, Any]) -> bool:
    """Whether streamed calls agree with the text so far: each name the parsed one, each
    arguments text a prefix of the parsed arguments' JSON."""
    body = tokens.get("text", "").split(START)[-1].split(END)[0]
    try:
        parsed = partial_json_parser.loads(body, ALLOW_ALL) if joined["calls"] else []
    except Exception:
        return False
    if not isinstance(parsed, list) or len(parsed) < len(joined["calls"]):
        return False
    for (_, name, args), call in zip(joined["calls"], parsed, strict=False):
        if not isinstance(call, dict) or (name and call.get("name") != name):
            return False
        if args and not dumps(call.get("arguments", {})).startswith(args):
            return False
    return True


@tool_parser("jamba")
class JambaToolParser(JsonToolParser):
    name = "jamba"

    def __init__(self, tokenizer: Any, ctx: Any) -> None:
        super().__init__(tokenizer, ctx)
        self.start_id = self.vocab_id(START)
        if self.start_id is None or self.vocab_id(END) is None:
            raise RuntimeError(
                "Jamba Tool parser could not locate tool calls start/end tokens in the tokenizer!"
            )

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        if START not in text:
            return no_calls(text)
        try:
            raw_calls = json.loads(lazy_bodies(text, START, END)[0])  # vLLM's findall(...)[0]
            calls = []
            for raw in raw_calls:
                name = raw["name"]
                if not isinstance(name, str):
                    raise TypeError(name)
                args = dumps(raw["arguments"])
                calls.append(ToolCall(name=name, arguments=args, id=random_tool_call_id()))
        except Exception:
            return no_calls(text)
        content = text[: text.find(START)]
        return ExtractedToolCalls(
            tools_called=True,
            tool_calls=calls,
            content=content if content and content != " " else None,
        )

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> DeltaMessage | None:
        # vLLM's per-delta logic (first arguments found by searching the delta's text, one
        # step per chunk) loses text on chunks of several tokens: its answers are checked
        # against the chunk read token by token (engines/shadow_stream.py).
        if delta_ids and self._before_calls(state, delta_text):

            def advance(run: JSONState) -> None:  # what `JsonToolParser.stream` keeps
                if not run:
                    run.update(self.initial_state())
                run["text"] += delta_text
                run["n_ids"] += len(delta_ids)
                run["last_id"] = delta_ids[-1]

            delta = content_step(state, delta_text, delta_ids, advance)
            if delta is not None:
                return delta
        pieces = token_pieces(self.tokenizer, delta_text, delta_ids)
        return shadow_step(super().stream, state, delta_text, delta_ids, pieces, _healthy)

    @staticmethod
    def _before_calls(state: JSONState, delta_text: str) -> bool:
        """No `<tool_calls>` in the output so far, this chunk included: vLLM's step answers
        every piece of the chunk as content."""
        text = state["whole"].get("text", "") if "whole" in state else ""
        return START not in text[-len(START) :] + delta_text and START not in text

    def remaining_args(self, state: JSONState) -> str:
        if "whole" not in state:  # never stepped (e.g. a named tool_choice reads forced JSON)
            return ""
        return client_remaining(state, super().remaining_args(active_state(state)))

    def finish(self, state: JSONState) -> DeltaMessage | None:
        if "whole" not in state:
            return None
        return shadow_finish(state, super().remaining_args, _healthy)

    def step(
        self,
        state: JSONState,
        previous_text: str,
        current_text: str,
        delta_text: str,
        delta_ids: list[int],
    ) -> DeltaMessage | None:
        if START not in current_text:
            return DeltaMessage(content=delta_text)
        if self.start_id in delta_ids and len(delta_ids) == 1:
            return None
        flags = ALLOW_ALL if state["name_sent"] else ALLOW_NO_PARTIAL_STR
        try:
            return self._advance(state, current_text, delta_text, flags)
        except Exception:
            return None

    def _advance(
        self, state: JSONState, current_text: str, delta_text: str, flags: Any
    ) -> DeltaMessage | None:
        # vLLM's `split(START)[-1].split(END)[0]`, without splitting the whole text per token
        body = current_text[current_text.rfind(START) + len(START) :]
        end = body.find(END)
        body = body if end == -1 else body[:end]
        try:
            calls: list[Any] = partial_json_parser.loads(body, flags)
        except MalformedJSON:
            return None
        tool = state["tool"]
        streamed: list[str] = state["streamed"]
        current = calls[tool] if len(calls) > 0 else {}
        if len(calls) == 0:
            return None
        if len(calls) > tool + 1:
            delta = None
            if tool >= 0:
                args = current.get("arguments")
                if args:
                    diff = dumps(args).replace(streamed[tool], "")
                    delta = args_delta(tool, diff)
                    streamed[tool] += diff
            state["tool"] = len(calls) - 1
            state["name_sent"] = False
            streamed.append("")
            return delta

        delta = None
        if not state["name_sent"]:
            name = current.get("name")
            if name:
                if not isinstance(name, str):
                    raise TypeError(name)
                delta = name_delta(tool, random_tool_call_id(), name)
                state["name_sent"] = True
        else:
            prev_args = state["prev"][tool].get("arguments")
            cur_args = current.get("arguments")
            new_text = delta_text.replace("'", '"')
            if not cur_args:
                delta = None
            elif not prev_args:
                cur_json = dumps(cur_args)
                at = cur_json.find(new_text)
                if at != -1:
                    sent = cur_json[: at + len(new_text)]
                elif is_complete_json(body):
                    sent = cur_json
                else:
                    return None
                delta = args_delta(tool, sent)
                streamed[tool] += sent
            else:
                diff = intermediate_diff(dumps(cur_args), dumps(prev_args))
                delta = args_delta(tool, diff)
                streamed[tool] += diff
        state["prev"] = calls
        return delta
