"""poolside_v1: GLM-4 style XML calls with string values streamed as they arrive.

    <tool_call>get_weather
    <arg_key>city</arg_key><arg_value>Paris</arg_value>
    </tool_call>

Values of parameters the tool schema types as "string" stay verbatim; others are decoded as
JSON, then as a Python literal, else kept as text. One-shot parsing is a regex over complete
calls. Streaming is vLLM's buffer-driven state machine: text outside calls is content (a
possible `<tool_call>` prefix held back), the name is sent once the name line ends, string
values stream escaped chunk by chunk, other values once their `</arg_value>` arrives, and
`</tool_call>` closes the arguments object. The streaming state is the pending buffer plus
per-call progress lists, all plain JSON.
"""

from __future__ import annotations

import ast
import json
import re
import warnings
from collections.abc import Sequence
from typing import Any

import partial_json_parser.core.complete
from partial_json_parser.core.options import Allow

from tokenfront.parsers.base import (
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCalls,
    JSONState,
    ToolCall,
    ToolParser,
    random_tool_call_id,
)
from tokenfront.parsers.engines.json_calls import dumps, no_calls, unstreamed_args
from tokenfront.parsers.engines.lazy_blocks import lazy_blocks
from tokenfront.parsers.registry import tool_parser

CALL_START, CALL_END = "<tool_call>", "</tool_call>"
KEY_START, KEY_END = "<arg_key>", "</arg_key>"
VAL_START, VAL_END = "<arg_value>", "</arg_value>"
# The name starts and ends with a non-space character and one whitespace run follows it (vLLM's
# test: a whitespace-only name is no call, and whitespace padding must not backtrack
# quadratically); inner spaces are kept.
DETAIL_RE = re.compile(
    r"<tool_call>\s*([^\s<](?:[^\n<]*[^\s<])?)\s*(<arg_key>.*?)?</tool_call>", re.DOTALL
)
ARG_RE = re.compile(r"<arg_key>(.*?)</arg_key>\s*<arg_value>(.*?)</arg_value>", re.DOTALL)


def deserialize(value: str) -> Any:
    """JSON, else a Python literal, else the text itself."""
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        pass
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            return ast.literal_eval(value)
    except (ValueError, SyntaxError):
        pass
    return value


def _escape(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)[1:-1] if text else ""


def _held_prefix(buffer: str, marker: str) -> int:
    """Length of the shortest prefix of `marker` that ends the buffer (vLLM's search order)."""
    for i in range(1, len(marker)):
        if buffer.endswith(marker[:i]):
            return i
    return 0


def _complete(prefix: str) -> Any:
    try:
        _, tail = partial_json_parser.core.complete.fix(prefix, Allow.ALL)
        return json.loads(prefix + tail)
    except Exception:
        return None


@tool_parser("poolside_v1")
class PoolsideV1ToolParser(ToolParser):
    name = "poolside_v1"
    supports_required_and_named = False

    # ---- schema --------------------------------------------------------------------------
    def _is_string(self, tool_name: str, arg: str) -> bool:
        for tool in self.ctx.tools or ():
            fn = tool.get("function", tool) if isinstance(tool, dict) else tool
            if not isinstance(fn, dict) or fn.get("name") != tool_name:
                continue
            params = fn.get("parameters")
            if params is None:
                return False
            return params.get("properties", {}).get(arg, {}).get("type", None) == "string"
        return False

    # ---- one-shot ------------------------------------------------------------------------
    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        calls: list[ToolCall] = []
        try:
            # vLLM's `<tool_call>.*?</tool_call>` (DOTALL) matches
            for start, end in lazy_blocks(text, CALL_START, CALL_END):
                match = text[start:end]
                detail = DETAIL_RE.search(match)
                if not detail:
                    continue
                name = detail.group(1).strip()
                raw = detail.group(2)
                args: dict[str, Any] = {}
                for key, value in ARG_RE.findall(raw) if raw else []:
                    key = key.strip()
                    args[key] = value if self._is_string(name, key) else deserialize(value.strip())
                calls.append(ToolCall(name=name, arguments=dumps(args)))
        except Exception:
            return no_calls(text)
        if not calls:
            return no_calls(text)
        content: str | None = text[: text.find(CALL_START)]
        if not content or not content.strip():
            content = None
        return ExtractedToolCalls(tools_called=True, tool_calls=calls, content=content)

    # ---- streaming -----------------------------------------------------------------------
    def initial_state(self) -> JSONState:
        return {
            "buf": "", "in": False, "tool": -1, "name_sent": False, "name": None, "key": None,
            "str": False, "ids": [], "streamed": [], "prev": [], "started": [], "closed": [],
            "seen": [],
        }  # fmt: skip

    def _begin(self, st: JSONState) -> None:
        st["tool"] += 1
        while len(st["ids"]) <= st["tool"]:
            st["ids"].append(random_tool_call_id())
            st["streamed"].append("")
            st["prev"].append({})
            st["started"].append(False)
            st["closed"].append(False)
            st["seen"].append([])
        st.update({"name_sent": False, "name": None, "key": None, "str": False, "in": True})

    @staticmethod
    def _finish_call(st: JSONState) -> None:
        st.update({"in": False, "name": None, "key": None, "str": False})

    @staticmethod
    def _revert(st: JSONState) -> None:
        if st["tool"] < 0:
            return
        for key in ("ids", "streamed", "prev", "started", "closed", "seen"):
            st[key].pop()
        st["tool"] -= 1

    @staticmethod
    def _pending(st: JSONState, pending: dict[int, DeltaToolCall]) -> DeltaToolCall:
        tool = st["tool"]
        if tool not in pending:
            pending[tool] = DeltaToolCall(index=tool)
        return pending[tool]

    def _send_name(self, st: JSONState, pending: dict[int, DeltaToolCall], name: str) -> None:
        tool = st["tool"]
        st["prev"][tool] = {"name": st["name"], "arguments": {}}
        delta = self._pending(st, pending)
        delta.id = st["ids"][tool]
        delta.type = "function"
        delta.name = name
        if delta.arguments is None:
            delta.arguments = ""

    def _send_args(self, st: JSONState, pending: dict[int, DeltaToolCall], fragment: str) -> None:
        tool = st["tool"]
        result = _complete(st["streamed"][tool])
        if result is not None:
            st["prev"][tool]["arguments"] = result
        delta = self._pending(st, pending)
        delta.arguments = (delta.arguments or "") + fragment

    def _value_fragment(self, st: JSONState, key: str, raw: str) -> str | None:
        key = key.strip()
        tool = st["tool"]
        if not key or key in st["seen"][tool]:
            return None
        value = deserialize(raw)
        opener = "{" if not st["started"][tool] else ", "
        fragment = opener + dumps(key) + ": " + dumps(value)
        st["started"][tool] = True
        st["seen"][tool].append(key)
        st["streamed"][tool] += fragment
        return fragment

    @staticmethod
    def _close(st: JSONState) -> str | None:
        tool = st["tool"]
        if st["closed"][tool]:
            return None
        st["closed"][tool] = True
        if not st["started"][tool]:
            st["streamed"][tool] = "{}"
            return "{}"
        st["streamed"][tool] += "}"
        return "}"

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> DeltaMessage | None:
        if not (self.ctx.tools and self.ctx.tool_choice != "none"):
            return DeltaMessage(content=delta_text) if delta_text else None
        st = state
        if not st:
            st.update(self.initial_state())
        st["buf"] += delta_text
        pending: dict[int, DeltaToolCall] = {}
        content: str | None = None
        while True:
            buf = st["buf"]
            if not st["in"]:
                at = buf.find(CALL_START)
                if at == -1:
                    held = _held_prefix(buf, CALL_START)
                    out = buf[: len(buf) - held] if held else buf
                    st["buf"] = buf[len(buf) - held :] if held else ""
                    if out:
                        content = (content or "") + out
                    break
                if at > 0:
                    content = (content or "") + buf[:at]
                st["buf"] = buf[at + len(CALL_START) :]
                self._begin(st)
                continue
            if not st["name_sent"]:
                nl, ak, end = buf.find("\n"), buf.find(KEY_START), buf.find(CALL_END)
                cuts = [i for i in (nl, ak, end) if i != -1]
                if not cuts:
                    break
                cut = min(cuts)
                name = buf[:cut].strip()
                if "<" in name:
                    # no name one-shot's DETAIL_RE accepts: the block is content, as one-shot
                    # (test_poolside_v1_tool_parser.py::
                    # test_whitespace_padded_tool_call_is_not_quadratic)
                    if end == -1:
                        break
                    content = (content or "") + CALL_START + buf[: end + len(CALL_END)]
                    st["buf"] = buf[end + len(CALL_END) :]
                    self._finish_call(st)
                    self._revert(st)
                    continue
                if name == "" and cut == end:
                    st["buf"] = buf[end + len(CALL_END) :]
                    self._finish_call(st)
                    self._revert(st)
                    continue
                st["buf"] = buf[nl + 1 :] if cut == nl else buf[cut:]
                st["name"] = name
                st["name_sent"] = True
                self._send_name(st, pending, name)
                continue
            tool = st["tool"]
            if st["str"]:
                val_end = buf.find(VAL_END)
                if val_end != -1:
                    st["buf"] = buf[val_end + len(VAL_END) :]
                    st["str"] = False
                    st["key"] = None
                    fragment = _escape(buf[:val_end]) + '"'
                    st["streamed"][tool] += fragment
                    self._send_args(st, pending, fragment)
                    continue
                safe = len(buf) - _held_prefix(buf, VAL_END)
                if safe > 0:
                    st["buf"] = buf[safe:]
                    escaped = _escape(buf[:safe])
                    if escaped:
                        st["streamed"][tool] += escaped
                        self._send_args(st, pending, escaped)
                break
            if st["key"] is not None:
                val_pos = buf.find(VAL_START)
                if val_pos == -1:
                    break
                buf = st["buf"] = buf[val_pos:]
                key = st["key"].strip()
                if self._is_string(st["name"], key):
                    st["buf"] = buf[len(VAL_START) :]
                    if key in st["seen"][tool]:
                        st["key"] = None
                        continue
                    st["seen"][tool].append(key)
                    opener = "{" if not st["started"][tool] else ", "
                    fragment = opener + dumps(key) + ': "'
                    st["started"][tool] = True
                    st["streamed"][tool] += fragment
                    st["str"] = True
                    self._send_args(st, pending, fragment)
                    continue
                val_end = buf.find(VAL_END)
                if val_end == -1:
                    break
                raw = buf[len(VAL_START) : val_end].strip()
                st["buf"] = buf[val_end + len(VAL_END) :]
                st["key"] = None
                value = self._value_fragment(st, key, raw)
                if value:
                    self._send_args(st, pending, value)
                continue
            end_pos, key_pos = buf.find(CALL_END), buf.find(KEY_START)
            if end_pos != -1 and (key_pos == -1 or end_pos < key_pos):
                st["buf"] = buf[end_pos + len(CALL_END) :]
                closing = self._close(st)
                if st["name"]:
                    try:
                        st["prev"][tool] = {"name": st["name"],
                                            "arguments": json.loads(st["streamed"][tool])}
                    except (json.JSONDecodeError, IndexError):
                        pass
                self._finish_call(st)
                if closing:
                    self._send_args(st, pending, closing)
                continue
            if key_pos == -1:
                break
            buf = st["buf"] = buf[key_pos:]
            key_end = buf.find(KEY_END)
            if key_end == -1:
                break
            st["key"] = buf[len(KEY_START) : key_end]
            st["buf"] = buf[key_end + len(KEY_END) :]
            continue
        calls = list(pending.values())
        if content is None and not calls:
            # vLLM's parser answers a delta with nothing to send as empty content when the
            # request asks for logprobs (so the chunk carrying them is sent)
            request = self.ctx.extra.get("chat_request")
            return DeltaMessage(content="") if getattr(request, "logprobs", False) else None
        return DeltaMessage(content=content, tool_calls=calls)

    def remaining_args(self, state: JSONState) -> str:
        return unstreamed_args(state)
