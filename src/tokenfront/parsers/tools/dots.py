"""`dots`: `<invoke>` blocks (or one JSON object) inside `<dots_function_call>` wrappers.

    <dots_function_call>
    <invoke name="NAME">
    <parameter name="KEY">VALUE</parameter>
    </invoke>
    </dots_function_call>

Parameter values are typed by the tool schema's declared type (`$ref`/`anyOf` resolved);
calls to functions the request does not offer are dropped. Only text before the first
wrapper is content. Streaming buffers from the wrapper opener and emits each call whole
when its block closes (a complete JSON body streams as soon as it parses). The state keeps
the unclosed block only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from tokenfront.parsers.base import (
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCalls,
    JSONState,
    ToolCall,
    ToolParser,
)
from tokenfront.parsers.engines.json_in_markers import is_complete_json, partial_tag_overlap
from tokenfront.parsers.engines.lazy_blocks import lazy_bodies
from tokenfront.parsers.registry import tool_parser

START = "<dots_function_call>"
END = "</dots_function_call>"
_INVOKE = re.compile(r"<invoke\s+name\s*=\s*(?P<name>[^>]+)>(?P<body>.*?)</invoke>", re.DOTALL)
_PARAM = re.compile(
    r"<parameter\s+name\s*=\s*(?P<name>[^>]+)>(?P<value>.*?)</parameter>", re.DOTALL
)


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _typed(value: str, declared: Any) -> Any:
    if value.lower() == "null":
        return None
    if isinstance(declared, list):
        declared = next((t for t in declared if t != "null"), "string")
    kind = str(declared).lower()
    if kind in ("string", "str", "text"):
        return value
    if kind in ("integer", "int"):
        try:
            return int(value)
        except ValueError:
            return value
    if kind in ("number", "float"):
        try:
            number = float(value)
        except ValueError:
            return value
        return int(number) if number.is_integer() else number
    if kind in ("boolean", "bool"):
        return value.lower() in ("true", "1")
    try:
        return json.loads(value)
    except ValueError:
        return value


def _declared_type(schema: Any, defs: dict[str, Any], depth: int = 0) -> Any:
    if not isinstance(schema, dict) or depth > 10:
        return None
    if "type" in schema:
        return schema["type"]
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return _declared_type(defs.get(ref.rsplit("/", 1)[-1]), defs, depth + 1)
    for key in ("anyOf", "oneOf", "allOf"):
        choices = schema.get(key)
        if not isinstance(choices, list):
            continue
        for choice in choices:
            if isinstance(choice, dict) and choice.get("type") == "null":
                continue
            found = _declared_type(choice, defs, depth + 1)
            if found is not None:
                return found
    return None


@tool_parser("dots")
class DotsToolParser(ToolParser):
    name = "dots"
    supports_required_and_named = False

    # ---- request facts ---------------------------------------------------------------------
    def _schema(self, name: str) -> tuple[dict[str, Any], dict[str, Any]]:
        function = self.ctx.tool_named(name)
        params = function.get("parameters") if function else None
        if not isinstance(params, dict):
            return {}, {}
        props, defs = params.get("properties", {}), params.get("$defs", {})
        return (props if isinstance(props, dict) else {}), (defs if isinstance(defs, dict) else {})

    def _invoke(self, m: re.Match[str]) -> dict[str, Any]:
        name = _unquote(m.group("name"))
        props, defs = self._schema(name)
        args: dict[str, Any] = {}
        for p in _PARAM.finditer(m.group("body")):
            key = _unquote(p.group("name"))
            declared = (_declared_type(props[key], defs) or "string") if key in props else "string"
            args[key] = _typed(p.group("value").strip(), declared)
        return {"name": name, "arguments": args}

    def _block(self, body: str) -> list[dict[str, Any]]:
        """Raises ValueError/TypeError where vLLM's parser gives up on the block."""
        body = body.strip()
        if body.startswith("<invoke"):
            return [self._invoke(m) for m in _INVOKE.finditer(body)]
        parsed = json.loads(body)
        if not isinstance(parsed, dict):
            raise TypeError("Dots JSON tool call must be an object")
        return [parsed]

    def _valid(self, parsed: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        name = parsed.get("name")
        if not isinstance(name, str) or self.ctx.tool_named(name) is None:
            return None
        args = parsed.get("arguments", parsed.get("parameters", {})) or {}
        return (name, args) if isinstance(args, dict) else None

    # ---- one-shot --------------------------------------------------------------------------
    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        at = text.find(START)
        if at == -1:
            return ExtractedToolCalls(False, [], text)
        calls: list[ToolCall] = []
        # vLLM's `START\s*(.*?)\s*END` (DOTALL) blocks
        for body in lazy_bodies(text, START, END):
            try:
                for parsed in self._block(body.strip()):
                    valid = self._valid(parsed)
                    if valid is not None:
                        calls.append(ToolCall(valid[0], json.dumps(valid[1], ensure_ascii=False)))
            except (ValueError, TypeError):
                continue
        if not calls:
            return ExtractedToolCalls(False, [], text)
        return ExtractedToolCalls(True, calls, text[:at].strip() or None)

    # ---- streaming -------------------------------------------------------------------------
    def initial_state(self) -> JSONState:
        # buf: text from an unclosed wrapper (or a partial opener); tid: last call index;
        # sent: the open block's JSON call was started; streamed: its arguments sent so far.
        return {"buf": "", "tid": -1, "sent": False, "streamed": ""}

    def _new_call(self, st: JSONState, name: str, args: str, calls: list[DeltaToolCall]) -> None:
        st["tid"] += 1
        calls.append(
            DeltaToolCall(
                index=st["tid"], id=self.new_tool_call_id(name), type="function", name=name,
                arguments=args,
            )
        )  # fmt: skip

    def _json_body(self, st: JSONState, calls: list[DeltaToolCall]) -> None:
        body = st["buf"][len(START) :].strip()
        if not body or not is_complete_json(body):
            return
        parsed = json.loads(body)
        if not isinstance(parsed, dict):
            return
        valid = self._valid(parsed)
        if valid is None:
            return
        name, args = valid
        serialized = json.dumps(args, ensure_ascii=False)
        if not st["sent"]:
            self._new_call(st, name, "", calls)
            st["sent"] = True
            st["streamed"] = ""
        if serialized.startswith(st["streamed"]):
            diff = serialized[len(st["streamed"]) :]
            if diff:
                calls.append(DeltaToolCall(index=st["tid"], arguments=diff))
                st["streamed"] += diff

    def _close_block(
        self, st: JSONState, body: str, normal: list[str], calls: list[DeltaToolCall]
    ) -> None:
        try:
            parsed = self._block(body)
            if not parsed:
                raise ValueError("Dots tool-call block contains no invoke")
            had_streamed = st["sent"]
            valid = [v for p in parsed if (v := self._valid(p)) is not None]
            if st["sent"] and valid:
                _, args = valid.pop(0)
                serialized = json.dumps(args, ensure_ascii=False)
                if serialized.startswith(st["streamed"]):
                    rest = serialized[len(st["streamed"]) :]
                    if rest:
                        calls.append(DeltaToolCall(index=st["tid"], arguments=rest))
                st["streamed"] = serialized
            for name, args in valid:
                self._new_call(st, name, json.dumps(args, ensure_ascii=False), calls)
            if not valid and not had_streamed:
                # a block of unknown tools stays content with its wrapper, as one-shot
                # (test_non_stream_unknown_tool_is_left_as_content; vLLM 0.33.0 streamed the
                # stripped body); an unparsable body streams bare
                # (test_streaming_malformed_block_does_not_block_later_valid_call)
                normal.append(START + body + END)
        except (ValueError, TypeError):
            normal.append(body.strip())
        st["sent"] = False

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> DeltaMessage | None:
        st = state
        st["buf"] += delta_text
        normal: list[str] = []
        calls: list[DeltaToolCall] = []
        while st["buf"]:
            buf = st["buf"]
            at = buf.find(START)
            if at == -1:
                # vLLM holds back only a partial opener, so a closer split over deltas
                # leaked as content; its test strips it (docs/deviations.md).
                held = max(partial_tag_overlap(buf, START), partial_tag_overlap(buf, END))
                normal.append(buf[:-held] if held else buf)
                st["buf"] = buf[-held:] if held else ""
                normal = [part.replace(END, "") for part in normal]
                break
            if at > 0:
                normal.append(buf[:at])
                st["buf"] = buf = buf[at:]
            end = buf.find(END, len(START))
            if end == -1:
                self._json_body(st, calls)
                break
            body = buf[len(START) : end]
            st["buf"] = buf[end + len(END) :]
            self._close_block(st, body, normal, calls)
        content = "".join(normal)
        if not content and not calls:
            return None
        return DeltaMessage(content=content or None, tool_calls=calls)

    def finish(self, state: JSONState) -> DeltaMessage | None:
        """vLLM's `flush_pending_normal_text` (which its server never calls; its test does):
        a partial opener held at the end of the stream is content."""
        buf = state.get("buf", "")
        if not buf or START in buf:
            return None
        state["buf"] = ""
        text = buf.replace(END, "")
        return DeltaMessage(content=text) if text else None
