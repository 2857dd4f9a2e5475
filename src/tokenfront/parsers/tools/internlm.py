"""InternLM2 tool calls: `<|action_start|><|plugin|>{"name": ..., "parameters": {...}}<|action_end|>`.

One call per message. One-shot parsing lets a JSON syntax error escape (vLLM answers 400 with the
decoder's message); streaming sends the name whole, then argument text as it becomes stable.
"""

from __future__ import annotations

import json
from typing import Any

from tokenfront.parsers.base import (
    DeltaMessage,
    ExtractedToolCalls,
    JSONState,
    ToolCall,
    random_tool_call_id,
)
from tokenfront.parsers.engines.json_calls import (
    ALLOW_ALL,
    ALLOW_NO_PARTIAL_STR,
    JsonToolParser,
    MalformedJSON,
    args_delta,
    common_prefix,
    dumps,
    is_complete_json,
    name_delta,
    no_calls,
)
from tokenfront.parsers.registry import tool_parser

ACTION_START = "<|action_start|>"
PLUGIN_START = "<|action_start|><|plugin|>"
ACTION_END = "<|action_end|>"


def _arguments(obj: Any) -> Any:
    if "parameters" in obj:
        return obj.get("parameters")
    if "arguments" in obj:
        return obj.get("arguments")
    return None


@tool_parser("internlm")
class InternLM2ToolParser(JsonToolParser):
    name = "internlm"

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        if PLUGIN_START not in text:
            return no_calls(text)
        # Errors (two plugin markers) propagate: vLLM turns them into a 400.
        content, action = text.split(PLUGIN_START)
        action = action.split(ACTION_END)[0]
        action = action[action.find("{") :]
        # Deliberate deviations from vLLM 0.33.0 (docs/deviations.md), asserted by
        # tests/tool_parsers/test_internlm2_tool_parser.py: a malformed action body is no call
        # (0.33.0: 400), and a tool the request does not declare is not emitted.
        try:
            obj = json.loads(action)
        except ValueError:
            return no_calls(text)
        if not isinstance(obj, dict) or not isinstance(obj.get("name"), str):
            return no_calls(text)
        name = obj["name"]
        if self.ctx.tools and self.ctx.tool_named(name) is None:
            return no_calls(text)
        args = dumps(obj.get("parameters", obj.get("arguments", {})))
        return ExtractedToolCalls(
            tools_called=True,
            tool_calls=[ToolCall(name=name, arguments=args, id=random_tool_call_id())],
            content=content if content else None,
        )

    def initial_state(self) -> JSONState:
        state = super().initial_state()
        state["position"] = 0
        return state

    def step(
        self,
        state: JSONState,
        previous_text: str,
        current_text: str,
        delta_text: str,
        delta_ids: list[int],
    ) -> DeltaMessage | None:
        if ACTION_START not in current_text:
            state["position"] = len(current_text)
            return DeltaMessage(content=delta_text)
        if state.get("rejected"):
            return DeltaMessage(content=delta_text) if delta_text else None
        if state["tool"] > 0:
            return DeltaMessage(content="")
        start = state["position"]
        rest = current_text[start:]
        if PLUGIN_START not in rest:
            return None
        parts = rest.split(PLUGIN_START)
        if len(parts) != 2:
            raise ValueError("more than one tool call in the stream")
        text, action = parts
        if text:
            state["position"] += len(text)
            if not action.strip():
                return DeltaMessage(content=text)
        action = action.strip().split(ACTION_END)[0]
        flags = ALLOW_ALL if state["name_sent"] else ALLOW_NO_PARTIAL_STR
        try:
            delta = self._advance(state, action, delta_text, flags)
        except Exception:
            delta = None
        if state.get("rejected"):
            held = current_text[start:]  # the chunk's text before the marker included
            state["position"] = len(current_text)
            return DeltaMessage(content=held) if held else None
        if text:
            # Content and the call's start in one chunk: both are sent (vLLM: the content
            # only, and the call is lost when no later chunk comes).
            delta = delta or DeltaMessage()
            delta.content = text
        return delta

    def _advance(
        self, state: JSONState, action: str, delta_text: str, flags: Any
    ) -> DeltaMessage | None:
        import partial_json_parser

        try:
            call = partial_json_parser.loads(action, flags)
        except MalformedJSON:
            return None
        tool = state["tool"]
        streamed: list[str] = state["streamed"]
        delta: DeltaMessage | None = None
        if not state["name_sent"]:
            name = call.get("name")
            if name:
                if not isinstance(name, str):
                    raise TypeError(name)
                if self.ctx.tools and self.ctx.tool_named(name) is None:
                    # an undeclared tool is no call, its text content, as one-shot
                    # (test_internlm2_tool_parser.py::test_extract_unknown_tool_name_not_emitted)
                    state["rejected"] = True
                    return None
                tool += 1
                state["tool"] = tool
                delta = name_delta(tool, random_tool_call_id(), name)
                state["name_sent"] = True
                streamed.append("")
        else:
            prev_args = _arguments(state["prev"][tool])
            cur_args = _arguments(call)
            if not cur_args:
                delta = None
                if cur_args is not None and not streamed[tool] and is_complete_json(action):
                    # A finished call without arguments streams them ("{}"; vLLM: nothing),
                    # as test_internlm2_tool_parser.py::test_empty_arguments[True] asserts.
                    streamed[tool] = dumps(cur_args)
                    delta = args_delta(tool, streamed[tool])
            elif not prev_args:
                cur_json = dumps(cur_args)
                at = cur_json.find(delta_text)
                if at != -1:
                    sent = cur_json[: at + len(delta_text)]
                elif is_complete_json(action):
                    sent = cur_json
                else:
                    return None
                delta = args_delta(tool, sent)
                streamed[tool] += sent
            else:
                cur_json = dumps(cur_args)
                prev_json = dumps(prev_args)
                sent_len = len(streamed[tool])
                if is_complete_json(action):
                    diff = cur_json[sent_len:]
                elif cur_json != prev_json:
                    diff = common_prefix(prev_json, cur_json)[sent_len:]
                else:
                    diff = ""
                delta = args_delta(tool, diff)
                streamed[tool] += diff
        call["arguments"] = _arguments(call)
        state["prev"] = [call]
        return delta
