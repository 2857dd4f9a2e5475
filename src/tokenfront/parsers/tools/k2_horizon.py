"""`k2_horizon`: K2 Horizon IFM tool-call groups, XML (default), typed XML or JSON calls.

    <ifm|tool_calls><ifm|tool_call>NAME<ifm|arg_key>K</ifm|arg_key>[<ifm|arg_type>T</ifm|arg_type>]
    <ifm|arg_value>V</ifm|arg_value></ifm|tool_call></ifm|tool_calls>

`tool_call_format` in chat_template_kwargs picks `xml` (no type tags), `xml_typed` (type tags
required) or `json` (`{"name": ..., "arguments": {...}}` per call). The group must be closed
and hold only well-formed calls to offered tools, else the whole output is content. Values
are typed from the tool schema (an explicit type tag narrows it). Text around the group is
content; whitespace-only content is dropped. Streaming sends the calls whole once the group
closes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from tokenfront.parsers.base import (
    DeltaMessage,
    ExtractedToolCalls,
    JSONState,
    ParseContext,
    ToolCall,
    ToolParser,
)
from tokenfront.parsers.engines.json_in_markers import partial_tag_overlap
from tokenfront.parsers.engines.schema_types import (
    coerce_text,
    has_tool,
    schema_types,
    tool_properties,
)
from tokenfront.parsers.registry import tool_parser

GROUP_START, GROUP_END = "<ifm|tool_calls>", "</ifm|tool_calls>"
CALL_START, CALL_END = "<ifm|tool_call>", "</ifm|tool_call>"
KEY = ("<ifm|arg_key>", "</ifm|arg_key>")
TYPE = ("<ifm|arg_type>", "</ifm|arg_type>")
VALUE = ("<ifm|arg_value>", "</ifm|arg_value>")
ARG_MARKERS = (*KEY, *TYPE, *VALUE)
FORMATS = frozenset({"xml", "xml_typed", "json"})

_CALL = re.compile(re.escape(CALL_START) + r"(.*?)" + re.escape(CALL_END), re.DOTALL)
_ARG = re.compile(
    re.escape(KEY[0]) + r"(.*?)" + re.escape(KEY[1])
    + r"\s*(?:" + re.escape(TYPE[0]) + r"(.*?)" + re.escape(TYPE[1]) + r"\s*)?"
    + re.escape(VALUE[0]) + r"(.*?)" + re.escape(VALUE[1]),
    re.DOTALL,
)  # fmt: skip


class MalformedCall(ValueError):
    pass


def _base_type(arg_type: str | None) -> str | None:
    return arg_type.split("[", 1)[0].strip().lower() if arg_type else None


def _coerce_json(value: Any, schema: Any) -> Any:
    if not isinstance(schema, dict):
        return value
    raw = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, allow_nan=False)
    return coerce_text(raw, schema_types(schema))


def _coerce_xml(value: str, schema: Any, explicit: str | None) -> Any:
    base = _base_type(explicit)
    targets = schema_types(schema)
    if isinstance(schema, dict):
        if base in targets and len(set(targets)) > 1:
            targets = [base]
    elif base == "any":
        return value
    elif base:
        targets = [base]
    return coerce_text(value if "string" in targets else value.strip(), targets)


def _content_or_none(content: str) -> str | None:
    return content if content.strip() else None


@tool_parser("k2_horizon")
class K2HorizonToolParser(ToolParser):
    name = "k2_horizon"
    # Required and named tool choices parse the IFM format too (no forced JSON).
    supports_required_and_named = False
    # vLLM's `engine_based_streaming`: alone (no reasoning parser) the pipeline is engine-based
    engine_based = True

    @classmethod
    def kwargs_error(cls, chat_template_kwargs: dict[str, Any]) -> str | None:
        fmt = chat_template_kwargs.get("tool_call_format", "xml")
        if not isinstance(fmt, str) or fmt not in FORMATS:
            return f"Unsupported tool_call_format {fmt!r}. Supported values: {', '.join(sorted(FORMATS))}."
        return None

    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        super().__init__(tokenizer, ctx)  # (refuses an unknown format: kwargs_error)
        self.format = (ctx.chat_template_kwargs or {}).get("tool_call_format", "xml")

    # ---- one call --------------------------------------------------------------------------
    def _check_name(self, name: Any) -> str:
        if not isinstance(name, str) or not name or any(ch.isspace() for ch in name):
            raise MalformedCall("invalid function name")
        if self.ctx.tools and not has_tool(self.ctx.tools, name):
            raise MalformedCall(f"unknown tool {name}")
        named = self.ctx.named_function
        if named is not None and name != named:
            raise MalformedCall(f"unexpected tool {name}")
        return name

    def _json_call(self, body: str) -> tuple[str, dict[str, Any]]:
        raw = json.loads(body.strip())
        if not isinstance(raw, dict):
            raise MalformedCall("call is not an object")
        name = self._check_name(raw.get("name"))
        arguments = raw.get("arguments", {})
        if not isinstance(arguments, dict):
            raise MalformedCall("arguments are not an object")
        props = tool_properties(self.ctx.tools, name)
        return name, {k: _coerce_json(v, props.get(k)) for k, v in arguments.items()}

    def _xml_call(self, body: str) -> tuple[str, dict[str, Any]]:
        first = body.find(KEY[0])
        if first == -1:
            if any(marker in body for marker in ARG_MARKERS):
                raise MalformedCall("malformed argument tags")
            return self._check_name(body.strip()), {}
        name = self._check_name(body[:first].strip())
        props = tool_properties(self.ctx.tools, name)
        arguments: dict[str, Any] = {}
        pos = first
        for m in _ARG.finditer(body, first):
            if body[pos : m.start()].strip():
                raise MalformedCall("malformed argument tags")
            key = m.group(1).strip()
            if not key or key in arguments:
                raise MalformedCall("missing or repeated argument name")
            explicit = m.group(2).strip() if m.group(2) is not None else None
            if self.format == "xml" and explicit is not None:
                raise MalformedCall("unexpected type tag")
            if self.format == "xml_typed" and not explicit:
                raise MalformedCall("missing type tag")
            arguments[key] = _coerce_xml(m.group(3), props.get(key), explicit)
            pos = m.end()
        if pos == first or body[pos:].strip():
            raise MalformedCall("malformed argument tags")
        return name, arguments

    # ---- one-shot --------------------------------------------------------------------------
    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        none = ExtractedToolCalls(False, [], _content_or_none(text))
        if self.ctx.tool_choice == "none":
            return none
        start = text.find(GROUP_START)
        if start == -1:
            return none
        body_start = start + len(GROUP_START)
        end = text.find(GROUP_END, body_start)
        if end == -1:
            return none
        body = text[body_start:end]
        matches = list(_CALL.finditer(body))
        if not matches or _CALL.sub("", body).strip():
            return none
        parse = self._json_call if self.format == "json" else self._xml_call
        try:
            calls = []
            for m in matches:
                name, arguments = parse(m.group(1))
                args = json.dumps(arguments, ensure_ascii=False, allow_nan=False)
                calls.append(ToolCall(name=name, arguments=args))
        except (ValueError, TypeError):
            return none
        content = text[:start] + text[end + len(GROUP_END) :]
        return ExtractedToolCalls(True, calls, _content_or_none(content))

    # ---- streaming -------------------------------------------------------------------------
    def initial_state(self) -> JSONState:
        # text: output since the first unsent character; group: offset of the group opener
        # in it; done: the group was resolved; pending: leading whitespace-only content.
        return {"text": "", "group": None, "done": False, "pending": "", "seen": False}

    @staticmethod
    def _content(state: JSONState, addition: str, final: bool = False) -> str | None:
        if addition:
            if state["seen"]:
                return addition
            state["pending"] += addition
            if state["pending"].strip():
                state["seen"] = True
                out, state["pending"] = state["pending"], ""
                return out
        if final:
            state["pending"] = ""
        return None

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> DeltaMessage | None:
        if "text" not in state:
            state.update(self.initial_state())
        if self.ctx.tool_choice == "none" or state["done"]:
            out = self._content(state, delta_text)
            return DeltaMessage(content=out) if out is not None else None
        state["text"] += delta_text
        text = state["text"]
        content: str | None = None
        if state["group"] is None:
            start = text.find(GROUP_START)
            if start == -1:
                sendable = len(text) - partial_tag_overlap(text, GROUP_START)
                content = self._content(state, text[:sendable])
                state["text"] = text[sendable:]
                return DeltaMessage(content=content) if content is not None else None
            content = self._content(state, text[:start])
            state["text"] = text = text[start:]
            state["group"] = 0
        end = text.find(GROUP_END, len(GROUP_START))
        if end == -1:
            return DeltaMessage(content=content) if content is not None else None
        end += len(GROUP_END)
        parsed = self.extract_tool_calls(text[:end])
        state["done"] = True
        state["text"] = ""
        if not parsed.tools_called:
            failed = self._content(state, text)
            combined = (content or "") + (failed or "")
            return DeltaMessage(content=combined) if combined else None
        calls = [
            c.as_delta(i, self.new_tool_call_id(c.name)) for i, c in enumerate(parsed.tool_calls)
        ]
        suffix = self._content(state, text[end:])
        combined = (content or "") + (suffix or "")
        return DeltaMessage(content=combined or None, tool_calls=calls)

    def finish(self, state: JSONState) -> DeltaMessage | None:
        if not state or "text" not in state:
            return None
        if not state["done"]:
            out = self._content(state, state["text"], final=True)
            state["text"] = ""
            state["done"] = True
        else:
            out = self._content(state, "", final=True)
        return DeltaMessage(content=out) if out is not None else None
