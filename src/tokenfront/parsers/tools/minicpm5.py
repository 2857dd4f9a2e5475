"""`minicpm5`: MiniCPM5 `<function name="NAME"><param name="KEY">VALUE</param></function>` calls.

Blocks are read as XML (the standard library parser, as vLLM without lxml) with a regex
fallback; values are typed by the tool schema's `type` (JSON, then Python literals), unknown
parameters are ignored, `properties`/`arguments` wrappers are unpacked, duplicate keys or a
nameless parameter invalidate the call, required parameters must be present and a few alias
tool names of the model are mapped. Invalid blocks stay content; with calls, content is
dropped. Streaming holds each block until it closes and sends it as one-shot judges it (a
whole call, or its text as content); text between blocks streams as it arrives.
"""

from __future__ import annotations

import ast
import json
import re
import uuid
import warnings
import xml.etree.ElementTree as ET
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
from tokenfront.parsers.engines.json_in_markers import partial_tag_overlap
from tokenfront.parsers.engines.lazy_blocks import lazy_blocks
from tokenfront.parsers.registry import tool_parser

START = "<function"
END = "</function>"
_NAME = re.compile(r"<function\s+name=['\"]([^'\"]+)['\"][^>]*>")
_PARAM = re.compile(r"<param\s+name=['\"]([^'\"]+)['\"]>([\s\S]*?)</param>", re.DOTALL)
_NAMELESS = re.compile(r"<param(?![^>]*\bname=)[^>]*>", re.DOTALL)
_CDATA = ("<![CDATA[", "]]>")


def _normalize(text: str) -> str:
    if not any(s in text for s in ("\u0120", "\u010a", "<functionname=", "<paramname=")):
        return text
    text = text.replace("\u0120", " ").replace("\u010a", "\n")
    return text.replace("<functionname=", "<function name=").replace("<paramname=", "<param name=")


def _visible(text: str) -> str:
    if "</think>" not in text:
        return text
    tail = text.rsplit("</think>", 1)[-1].lstrip()
    return tail if tail else text


def _literal(text: str) -> tuple[Any, bool]:
    try:
        try:
            return json.loads(text), True
        except json.JSONDecodeError:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", SyntaxWarning)
                return ast.literal_eval(text), True
    except Exception:
        return text, False


class _Tools:
    """The request's tools by name: allowed and required keys, declared types."""

    def __init__(self, tools: list[dict[str, Any]] | None) -> None:
        self.params: dict[str, dict[str, Any]] = {}
        for tool in tools or ():
            function = tool.get("function") or {}
            name = function.get("name")
            if name:
                params = function.get("parameters")
                self.params[name] = params if isinstance(params, dict) else {}

    def allowed(self, name: str) -> set[str]:
        props = self.params.get(name, {}).get("properties", {})
        return set(props) if isinstance(props, dict) else set()

    def required(self, name: str) -> set[str]:
        try:
            return set(self.params.get(name, {}).get("required", []))
        except TypeError:
            return set()

    def typed(self, name: str, key: str, value: Any) -> Any:
        props = self.params.get(name, {}).get("properties", {})
        declared = props[key].get("type") if key in props else None
        if declared == "string":
            return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        return _literal(value)[0] if isinstance(value, str) else value

    def add(self, name: str, key: str, text: str, args: dict[str, Any], seen: set[str]) -> bool:
        """Add one argument; False when it invalidates the call."""
        allowed = self.allowed(name)
        if key in ("properties", "arguments") and allowed and key not in allowed:
            value, ok = _literal(text)
            if not ok or not isinstance(value, dict):
                return False
            added = False
            for inner, inner_value in value.items():
                if inner not in allowed:
                    continue
                if inner in seen:
                    return False
                seen.add(inner)
                args[inner] = self.typed(name, inner, inner_value)
                added = True
            return added
        if allowed and key not in allowed:
            return True
        if key in seen:
            return False
        seen.add(key)
        args[key] = self.typed(name, key, text)
        return True


def _first(args: dict[str, Any], *keys: str) -> Any:
    """`args.get(k1) or args.get(k2) or ...` (the last value even when falsy)."""
    value = None
    for key in keys:
        value = value or args.get(key)
    return value


def _alias(name: str, args: dict[str, Any], names: set[str]) -> tuple[str, dict[str, Any]]:
    """The model's habitual alias names mapped to the offered tools."""
    if name in names:
        return name, args
    line = _first(args, "line_id", "id")
    if name == "get_details_by_phone" and "get_customer_by_phone" in names:
        phone = _first(args, "phone_number", "phone")
        if phone is not None:
            return "get_customer_by_phone", {"phone_number": phone}
    if name == "get_details_by_name" and "get_customer_by_name" in names:
        mapped: dict[str, Any] = {}
        full = _first(args, "full_name", "name")
        dob = _first(args, "date_of_birth", "dob")
        if full is not None:
            mapped["full_name"] = full
        if dob is not None:
            mapped["date_of_birth"] = dob
            mapped["dob"] = dob
        if mapped:
            return "get_customer_by_name", mapped
    if (
        name in ("get_line_details", "get_line_status", "get_roaming_status")
        and "get_details_by_id" in names
    ):
        if line is not None:
            return "get_details_by_id", {"id": line}
    if name == "get_plan_details" and "get_details_by_id" in names:
        plan = _first(args, "plan_id", "id")
        if plan is not None:
            return "get_details_by_id", {"id": plan}
    if name in ("enable_roaming", "disable_roaming") and "toggle_roaming" in names:
        if line is not None:
            return "toggle_roaming", {"line_id": line, "enabled": name == "enable_roaming"}
    if name in ("add_refueled_data", "add_data_to_line") and "refuel_data" in names:
        mapped = {}
        if "customer_id" in args:
            mapped["customer_id"] = args["customer_id"]
        if line is not None:
            mapped["line_id"] = line
        amount = _first(args, "amount_gb", "gb", "gb_amount", "amount")
        if amount is not None:
            mapped["amount_gb"] = amount
        if mapped:
            return "refuel_data", mapped
    return name, args


def _block(block: str, tools: _Tools) -> dict[str, Any] | None:
    """{name, parameters} of a valid block, else None."""
    name: str | None = None
    args: dict[str, Any] = {}
    ok = False
    invalid = False
    try:
        root = ET.fromstring(block)
        node = root if root.tag == "function" else root.find("function")
        if node is not None:
            name = (node.attrib.get("name") or "").strip()
            params = list(node.findall("param"))
            holder = node.find("arguments")
            if holder is not None and not params:
                params = list(holder.findall("param"))
            seen: set[str] = set()
            for param in params:
                key = param.attrib.get("name")
                if not key or not tools.add(name, key, param.text or "", args, seen):
                    args.clear()
                    invalid = True
                    break
        ok = bool(name)
    except Exception:
        ok = False
    if not ok:
        try:
            m = _NAME.search(block)
            if m:
                name = (m.group(1) or "").strip()
            bad = bool(_NAMELESS.search(block))
            seen = set()
            for pm in _PARAM.finditer(block):
                text = pm.group(2) or ""
                if text.startswith(_CDATA[0]) and text.endswith(_CDATA[1]):
                    text = text[len(_CDATA[0]) : -len(_CDATA[1])]
                else:
                    text = text.strip()
                if not tools.add(name or "", pm.group(1).strip(), text, args, seen):
                    bad = True
                    break
            if bad:
                args.clear()
                invalid = True
            ok = bool(name)
        except Exception:
            ok = False
    if not name or invalid:
        return None
    name, args = _alias(name, args, set(tools.params))
    if name not in tools.params:
        return None
    required = tools.required(name)
    if required and not required.issubset(args):
        return None
    return {"name": name, "parameters": args} if ok else None


@tool_parser("minicpm5")
class MiniCPM5ToolParser(ToolParser):
    name = "minicpm5"
    # Without a call the content is the parser's, byte-level pieces (`Ġ`, `Ċ`) normalized:
    # vLLM 0.33.0 serves the raw text; tests/tool_parsers/test_minicpm5xml_tool_parser.py::
    # test_thinking_only_sentencepiece_normalized_in_content asserts this (docs/deviations.md).
    content_without_calls_parsed = True

    def wants_special_tokens(self) -> bool:
        return bool(self.ctx.tools) and self.ctx.tool_choice != "none"

    # ---- one-shot --------------------------------------------------------------------------
    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        text = _normalize(text)
        if START not in text:
            return ExtractedToolCalls(False, [], _visible(text))
        tools = _Tools(self.ctx.tools)
        calls: list[ToolCall] = []
        normal: list[str] = []
        last = 0
        # vLLM's `<function.*?</function>` (DOTALL) blocks
        for start, end in lazy_blocks(text, "<function", "</function>"):
            if start > last:
                normal.append(text[last:start])
            parsed = _block(text[start:end], tools)
            if parsed is not None:
                arguments = json.dumps(parsed["parameters"], ensure_ascii=False)
                calls.append(ToolCall(parsed["name"], arguments, id=f"call_{uuid.uuid4().hex}"))
            else:
                normal.append(text[start:end])
            last = end
        if last < len(text):
            normal.append(text[last:])
        content = _visible("".join(normal).strip())
        return ExtractedToolCalls(bool(calls), calls, None if calls else content)

    # ---- streaming -------------------------------------------------------------------------
    # A block is held from its `<function` until its `</function>`: only then can it be
    # validated (duplicate or nameless parameters, required keys, wrapped arguments, alias
    # names) as one-shot does, so a valid block streams as one whole call and an invalid one
    # as its text. Text between blocks streams as it arrives, a possible `<function` prefix
    # held back; a block still open at the end is content. vLLM 0.33.0 streamed the markup
    # of a call as content (its `<` went out before `function` arrived) and could send a
    # call one-shot rejects (docs/deviations.md).
    def initial_state(self) -> JSONState:
        return {"pl": 0, "tid": -1}

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> DeltaMessage | None:
        _, current = self.accumulate(state, delta_text)
        try:
            return self._advance(state, _normalize(current), final=False)
        except Exception:
            return None

    def finish(self, state: JSONState) -> DeltaMessage | None:
        try:
            return self._advance(state, _normalize(state.get("_text", "")), final=True)
        except Exception:
            return None

    def _advance(self, st: JSONState, text: str, *, final: bool) -> DeltaMessage | None:
        if not self.ctx.tools:
            content = text[st["pl"] :]
            st["pl"] = len(text)
            return DeltaMessage(content=content) if content else None
        tools = _Tools(self.ctx.tools)
        content = ""
        calls: list[DeltaToolCall] = []
        while st["pl"] < len(text):
            rest = text[st["pl"] :]
            at = rest.find(START)
            if at == -1:
                keep = 0 if final else partial_tag_overlap(rest, START)
                content += rest[: len(rest) - keep]
                st["pl"] += len(rest) - keep
                break
            content += rest[:at]
            st["pl"] += at
            end = rest.find(END, at)
            if end == -1:
                if final:
                    content += rest[at:]
                    st["pl"] = len(text)
                break
            block = rest[at : end + len(END)]
            st["pl"] += len(block)
            parsed = _block(block, tools)
            if parsed is None:
                content += block
                continue
            st["tid"] += 1
            name = parsed["name"]
            calls.append(
                DeltaToolCall(
                    index=st["tid"], id=self.new_tool_call_id(name), type="function",
                    name=name, arguments=json.dumps(parsed["parameters"], ensure_ascii=False),
                )
            )  # fmt: skip
        if not content and not calls:
            return None
        return DeltaMessage(content=content or None, tool_calls=calls)
