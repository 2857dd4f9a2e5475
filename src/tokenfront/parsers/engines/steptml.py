"""Step3's steptml tool calls, parsed with a cursor over the accumulated text.

    <｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="NAME">
    <steptml:parameter name="KEY">VALUE</steptml:parameter></steptml:invoke><｜tool_call_end｜>
    <｜tool_calls_end｜>

Unlike the grammar engine this follows vLLM's cursor-based Step3 parser: a call's name
streams once its invoke tag is complete, its arguments only as a whole when the call
closes, values typed by a few scalar schema types.

Deliberate deviations from vLLM 0.33.0, asserted by vLLM's own
tests/tool_parsers/test_step3_tool_parser.py (docs/deviations.md): one-shot parsing also takes
calls written without the `function<｜tool_sep｜>` prefix; a `<｜tool_sep｜>` between two calls
is skipped when streaming; a string-typed value keeps its surrounding whitespace; a call with
no arguments streams "{}"; and the steps a stream's last chunks leave (one step is taken
per chunk, as in vLLM) are taken at its end, where vLLM loses them.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from typing import Any, ClassVar

import regex

from tokenfront.parsers.base import (
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCalls,
    JSONState,
    ToolCall,
    ToolParser,
)
from tokenfront.parsers.engines.json_calls import merge_deltas

_INVOKE = regex.compile(r'<steptml:invoke name="([^"]+)">')
_PARAM = regex.compile(r'<steptml:parameter name="([^"]+)">(.*?)</steptml:parameter>', regex.DOTALL)


class StepTmlToolParser(ToolParser):
    SECTION_BEGIN: ClassVar[str] = "<｜tool_calls_begin｜>"
    SECTION_END: ClassVar[str] = "<｜tool_calls_end｜>"
    CALL_BEGIN: ClassVar[str] = "<｜tool_call_begin｜>"
    CALL_END: ClassVar[str] = "<｜tool_call_end｜>"
    SEP: ClassVar[str] = "<｜tool_sep｜>"

    @staticmethod
    def parse_invoke(text: str) -> tuple[str | None, dict[str, Any] | None]:
        """The function name and its raw (unstripped) parameter values."""
        m = _INVOKE.search(text)
        if not m:
            return None, None
        return m.group(1), dict(_PARAM.findall(text))

    def cast_arguments(self, name: str, params: dict[str, Any]) -> dict[str, Any]:
        function = self.ctx.tool_named(name)
        schema = (function or {}).get("parameters") or {}
        properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
        for key, raw in params.items():
            if not isinstance(raw, str):
                continue
            spec = properties.get(key, {}) if isinstance(properties, dict) else {}
            kind = spec.get("type") if isinstance(spec, dict) else None
            # A string value keeps its whitespace (test_string_value_preserved); others trim.
            value = raw if kind == "string" else raw.strip()
            params[key] = value
            if kind == "integer":
                with contextlib.suppress(ValueError):
                    params[key] = int(value)
            elif kind == "number":
                with contextlib.suppress(ValueError):
                    params[key] = float(value)
            elif kind == "boolean":
                lowered = value.lower()
                params[key] = lowered == "true" if lowered in ("true", "false") else value
            elif kind == "null":
                params[key] = None if value.lower() == "null" else value
        return params

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        unchanged = ExtractedToolCalls(tools_called=False, tool_calls=[], content=text)
        if self.SECTION_BEGIN not in text:
            return unchanged
        before, rest = text.split(self.SECTION_BEGIN, 1)
        if self.SECTION_END not in rest:
            return unchanged
        block, after = rest.split(self.SECTION_END, 1)
        content = (before + after).strip()
        calls: list[ToolCall] = []
        for part in block.split(self.CALL_BEGIN):
            if not part or self.CALL_END not in part:
                continue
            body = part.split(self.CALL_END, 1)[0]
            invoke = body
            if self.SEP in body:
                kind, invoke = body.split(self.SEP, 1)
                if kind.strip() != "function":
                    continue
            name, params = self.parse_invoke(invoke)
            if name and params is not None:
                args = json.dumps(self.cast_arguments(name, params), ensure_ascii=False)
                calls.append(ToolCall(name=name, arguments=args))
        if not calls:
            return unchanged
        return ExtractedToolCalls(tools_called=True, tool_calls=calls, content=content or None)

    def initial_state(self) -> JSONState:
        # text: tool-phase text so far; pos: cursor; calls: per call {finished, name, parameters}
        return {
            "text": "",
            "pos": 0,
            "begun": False,
            "ended": False,
            "cur": -1,
            "sent": False,
            "calls": [],
        }

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> DeltaMessage | None:
        if not state:
            state.update(self.initial_state())
        state["text"] += delta_text
        # one step per chunk, as vLLM takes them: a chunk holding several steps leaves the
        # later ones to the next chunk
        return self._step(state)

    def held_at_end(self, state: JSONState) -> DeltaMessage | None:
        # the steps the last chunks left (vLLM loses them): every step the text allows
        return self.finish(state)

    def finish(self, state: JSONState) -> DeltaMessage | None:
        # (the pipeline takes the steps left in `held_at_end`: none are left here then)
        if not state:
            return None
        merged: DeltaMessage | None = None
        for _ in range(len(state["text"]) + 2):
            delta = self._step(state)
            if delta is None:
                break
            merged = merge_deltas(merged, delta)
        return merged

    def _step(self, state: JSONState) -> DeltaMessage | None:
        text: str = state["text"]
        calls: list[dict[str, Any]] = state["calls"]
        while True:
            if state["pos"] >= len(text):
                return None
            rest = text[state["pos"] :]
            if state["ended"]:
                state["pos"] = len(text)
                return DeltaMessage(content=rest)
            if not state["begun"]:
                if rest.startswith(self.SECTION_BEGIN):
                    state["pos"] += len(self.SECTION_BEGIN)
                    state["begun"] = True
                    continue
                at = rest.find(self.SECTION_BEGIN)
                if at == -1:
                    if rest and self.SECTION_BEGIN.startswith(rest.strip()):
                        return None
                    state["pos"] = len(text)
                    return DeltaMessage(content=rest)
                state["pos"] += at
                return DeltaMessage(content=rest[:at])
            stripped = rest.lstrip()
            state["pos"] += len(rest) - len(stripped)
            rest = stripped
            if rest.startswith(self.SECTION_END):
                state["pos"] += len(self.SECTION_END)
                state["ended"] = True
                state["cur"] = -1
                continue
            cur = state["cur"]
            if cur == -1 or calls[cur].get("finished"):
                if rest.startswith(self.CALL_BEGIN):
                    state["pos"] += len(self.CALL_BEGIN)
                    cur = state["cur"] = 0 if cur == -1 else cur + 1
                    state["sent"] = False
                    while len(calls) <= cur:
                        calls.append({})
                    calls[cur]["finished"] = False
                    continue
                if cur != -1 and rest.startswith(self.SEP):
                    # `<｜tool_sep｜>` between two calls (test_parallel_tool_calls)
                    state["pos"] += len(self.SEP)
                    continue
                if self.CALL_BEGIN.startswith(rest) or self.SEP.startswith(rest):
                    return None
            if cur == -1 or calls[cur].get("finished", False):
                return None
            end = rest.find(self.CALL_END)
            body = rest if end == -1 else rest[:end]
            if end == -1 and self.CALL_END.startswith(body):
                return None
            name, params = self.parse_invoke(body)
            if not name:
                return None
            calls[cur].update({"name": name, "parameters": params or {}})
            if not state["sent"]:
                state["sent"] = True
                return DeltaMessage(
                    tool_calls=[
                        DeltaToolCall(
                            index=cur, id=self.new_tool_call_id(name), type="function", name=name
                        )
                    ]
                )
            if end != -1:
                state["pos"] += end + len(self.CALL_END)
                calls[cur]["finished"] = True
                final = self.cast_arguments(name, calls[cur]["parameters"])
                # No arguments stream as "{}" (vLLM 0.33.0 sends none).
                args = json.dumps(final, ensure_ascii=False)
                calls[cur]["args_sent"] = True
                return DeltaMessage(tool_calls=[DeltaToolCall(index=cur, arguments=args)])
            return None

    def remaining_args(self, state: JSONState) -> str:
        """vLLM's `get_remaining_unstreamed_args` for this parser: it never records streamed
        arguments under the key it checks, so once a call was seen the answer is "{}".
        Tokenfront leaves out a call whose arguments were already sent whole."""
        calls = state.get("calls") or []
        if not calls or calls[-1].get("args_sent"):
            return ""
        return "{}"
