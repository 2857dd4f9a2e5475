"""hy_v3: Hunyuan V3 tool calls, typed by the tool schema.

    <tool_calls><tool_call>get_weather<tool_sep><arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call></tool_calls>

Every marker carries the tokenizer's `token_suffix`. Values are converted by the parameter's
schema types (`anyOf` / `oneOf` / type lists, with aliases such as "int" or "float64"):
boolean, integer, number, then JSON for arrays / objects, then the raw text for strings, else
JSON or a Python literal. Streaming sends the name once `<tool_sep>` arrives, then the
arguments JSON as a growing snapshot (string values streamed as they arrive, the closing brace
held back until `</tool_call>`); calls completed in the same chunk as the current one are sent
whole. Like vLLM, a `</tool_call></tool_calls>` seen anywhere in the text re-closes the buffer
on later chunks.
"""

from __future__ import annotations

import ast
import json
import re
import warnings
from collections.abc import Sequence
from typing import Any

from tokenfront.parsers.base import (
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCalls,
    JSONState,
    ParseContext,
    ToolCall,
    ToolParser,
    random_tool_call_id,
)
from tokenfront.parsers.engines.json_calls import dumps, no_calls, unstreamed_args
from tokenfront.parsers.engines.xml_args import PairScanner
from tokenfront.parsers.reasoning.hy_v3 import token_suffix
from tokenfront.parsers.registry import tool_parser

TYPE_ALIASES = {
    "str": "string", "text": "string", "varchar": "string", "char": "string", "enum": "string",
    "bool": "boolean", "binary": "boolean", "int": "integer", "float": "number",
    "double": "number", "list": "array", "dict": "object", "map": "object",
}  # fmt: skip
INTEGER_PREFIXES = ("int", "uint", "long", "short", "unsigned")
NUMBER_PREFIXES = ("num", "float")
SCALARS = frozenset({"string", "boolean", "integer", "number"})
_SPACES = re.compile(r"\s*")


def normalize_type(raw: str) -> str:
    exact = TYPE_ALIASES.get(raw)
    if exact is not None:
        return exact
    lower = raw.lower()
    if lower.startswith(INTEGER_PREFIXES):
        return "integer"
    if lower.startswith(NUMBER_PREFIXES):
        return "number"
    return raw


def _schema_options(schema: dict[str, Any]) -> list[dict[str, Any]]:
    if "type" in schema:
        kind = schema["type"]
        return [{"type": t} for t in kind] if isinstance(kind, list) else [schema]
    if "anyOf" in schema:
        return list(schema["anyOf"])
    if "oneOf" in schema:
        return list(schema["oneOf"])
    return [{"type": "string"}]


def schema_types(schema: dict[str, Any]) -> set[str]:
    return {normalize_type(s.get("type", "string")) for s in _schema_options(schema)} - {"null"}


def _literal(value: str) -> Any:
    try:
        return json.loads(value)
    except Exception:
        pass
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            return ast.literal_eval(value)
    except Exception:
        pass
    return value


def _as_bool(value: str) -> bool | None:
    lower = value.lower()
    return True if lower == "true" else False if lower == "false" else None


def _as_int(value: str) -> int | None:
    try:
        return int(value)
    except (ValueError, TypeError):
        return None


def _as_number(value: str) -> int | float | None:
    try:
        return float(value) if ("." in value or "e" in value or "E" in value) else int(value)
    except (ValueError, TypeError):
        return None


def convert(value: str, types: set[str]) -> Any:
    """A raw value typed by the parameter's schema types."""
    if "boolean" in types and (b := _as_bool(value)) is not None:
        return b
    if "integer" in types and (i := _as_int(value)) is not None:
        return i
    if "number" in types and (n := _as_number(value)) is not None:
        return n
    if types - SCALARS:
        try:
            return json.loads(value)
        except ValueError:
            pass
    if "string" in types:
        return value
    return _literal(value)


class TruncatedCallCloser(ToolParser):
    """A Hunyuan tool parser whose streams send an open call's arguments as JSON snapshots
    (`_snapshot(state, args_text) -> (json, ends_in_open_string)`); `finish` closes a cut call.
    Argument values are typed by the tool's parameter schema (`_value`)."""

    calls_start: str
    calls_end: str
    call_start: str
    call_end: str
    calls_start_id: int | None

    def _snapshot(self, st: JSONState, args_text: str) -> tuple[str, bool]:
        raise NotImplementedError

    def _arg_schema(self, function: str, key: str) -> dict[str, Any]:
        for tool in self.ctx.tools or ():
            fn = tool.get("function") or {}
            if fn.get("name") == function:
                params = fn.get("parameters")
                if params is None:
                    return {}
                schema: dict[str, Any] = params.get("properties", {}).get(key, {})
                return schema
        return {}

    def _value(self, value: str, function: str, key: str) -> Any:
        return convert(value, schema_types(self._arg_schema(function, key)))

    def _take(
        self, st: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> tuple[bool, str | None]:
        """Add a delta to the call buffer once the tool-calls section has begun (False before:
        the delta is content), with the text ahead of the section marker. A closing pair seen
        in the stream completes a call left without its `</tool_call>`. Sets up an empty state."""
        if not st:
            st.update(self.initial_state())
        pair = self.call_end + self.calls_end
        window = st["tail"] + delta_text
        st["closed"] = st["closed"] or pair in window
        st["tail"] = window[-(len(pair) - 1) :]
        st["seen"] = st["seen"] or self.calls_start_id in delta_ids
        if not st["seen"]:
            return False, None
        content: str | None = None
        if self.calls_start in delta_text:
            parts = delta_text.split(self.calls_start)
            st["buf"] += parts[-1]
            content = parts[0] or None
        else:
            st["buf"] += delta_text
        if st["closed"] and self.call_end not in st["buf"]:
            st["buf"] += pair
        return True, content

    def _split_call(self, buf: str) -> tuple[bool, str, str]:
        """(whether the open call's `</tool_call>` is in `buf`, its argument text, the rest)."""
        if self.call_end not in buf:
            return False, buf, ""
        end = buf.find(self.call_end)
        return True, buf[:end], buf[end + len(self.call_end) :]

    def _open_diff(self, st: JSONState, snapshot: str) -> str | None:
        """The open call's arguments grown since last sent, its closing brace held back."""
        end = len(snapshot) - 1
        if end <= st["sent"]:
            return None
        diff = snapshot[st["sent"] : end]
        st["sent"] = end
        return diff

    def finish(self, state: JSONState) -> DeltaMessage | None:
        """A stream cut before `</tool_call>`: send the withheld end of the open call's
        arguments (the closing quote of an open string value and the brace), so the client
        holds valid JSON (vLLM's tests/tool_parsers/test_hy_truncated_stream.py)."""
        if not state or state.get("name") is None:
            return None
        snapshot, open_string = self._snapshot(state, state["buf"])
        rest = snapshot[state["sent"] : -1] + ('"' if open_string else "") + "}"
        state["sent"] = len(snapshot)
        return DeltaMessage(tool_calls=[DeltaToolCall(index=state["tool"], arguments=rest)])

    def remaining_args(self, state: JSONState) -> str:
        return unstreamed_args(state)


@tool_parser("hy_v3")
class HYV3ToolParser(TruncatedCallCloser):
    name = "hy_v3"

    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        super().__init__(tokenizer, ctx)
        sfx = token_suffix(tokenizer)
        self.calls_start, self.calls_end = f"<tool_calls{sfx}>", f"</tool_calls{sfx}>"
        self.call_start, self.call_end = f"<tool_call{sfx}>", f"</tool_call{sfx}>"
        self.sep = f"<tool_sep{sfx}>"
        self.key_start, self.key_end = f"<arg_key{sfx}>", f"</arg_key{sfx}>"
        self.val_start, self.val_end = f"<arg_value{sfx}>", f"</arg_value{sfx}>"
        # The contract (vLLM's patterns), found in linear time by `_closed_calls`, `_cut_call`
        # and `self.pairs` (tests/parsers/test_hy_v3_scan.py): `findall` and `finditer` backtrack
        # super-linearly on repeated calls or pairs left open.
        cs, ce, sep = re.escape(self.call_start), re.escape(self.call_end), re.escape(self.sep)
        self.call_re = re.compile(rf"{cs}(.*?){sep}(.*?){ce}", re.DOTALL)
        self.portion_re = re.compile(rf"{cs}(.*?){sep}(.*)", re.DOTALL)
        self.args_re = re.compile(
            rf"{re.escape(self.key_start)}(.*?){re.escape(self.key_end)}\s*"
            rf"{re.escape(self.val_start)}(.*?){re.escape(self.val_end)}",
            re.DOTALL,
        )
        self.pairs = PairScanner(self.key_start, self.key_end, self.val_start, self.val_end, _SPACES)
        self.calls_start_id = self.vocab_id(self.calls_start)
        if self.calls_start_id is None or self.vocab_id(self.calls_end) is None:
            raise RuntimeError(
                "HYV3 Tool parser could not locate tool call start/end tokens in the tokenizer!"
            )

    # ---- one-shot ------------------------------------------------------------------------
    def _calls(self, text: str) -> list[ToolCall]:
        try:
            found = self._closed_calls(text)
            if found:
                found += self._cut_call(text.split(self.call_end)[-1])
            else:
                found = self._cut_call(text)
            calls = []
            for name, args in found:
                name = name.strip()
                pairs = self.pairs.pairs(args.strip())
                values = {k: self._value(v, name, k) for k, v, _, _ in pairs}
                calls.append(ToolCall(name=name, arguments=dumps(values)))
            return calls
        except Exception:
            return []

    def _closed_calls(self, text: str) -> list[tuple[str, str]]:
        """`call_re.findall(text)`: from each call start, the name runs to the first separator
        and the arguments to the first call end after it; the first start without them ends
        the list (a later one has fewer to reach)."""
        found: list[tuple[str, str]] = []
        pos = 0
        while (start := text.find(self.call_start, pos)) != -1:
            sep = text.find(self.sep, start + len(self.call_start))
            end = -1 if sep == -1 else text.find(self.call_end, sep + len(self.sep))
            if end == -1:
                break
            found.append((text[start + len(self.call_start) : sep], text[sep + len(self.sep) : end]))
            pos = end + len(self.call_end)
        return found

    def _cut_call(self, text: str) -> list[tuple[str, str]]:
        """`portion_re.findall(text)`: the first call start and the first separator after it
        (none there: none after a later start either), its arguments running to the end."""
        start = text.find(self.call_start)
        sep = -1 if start == -1 else text.find(self.sep, start + len(self.call_start))
        if sep == -1:
            return []
        return [(text[start + len(self.call_start) : sep], text[sep + len(self.sep) :])]

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        if self.calls_start not in text:
            return no_calls(text)
        content = text[: text.find(self.calls_start)]
        return ExtractedToolCalls(True, self._calls(text), content or None)

    # ---- streaming -----------------------------------------------------------------------
    def initial_state(self) -> JSONState:
        return {
            "buf": "", "seen": False, "closed": False, "tail": "", "tool": -1, "id": None,
            "name": None, "done": {}, "key": None, "is_str": False, "sent": 0,
            "prev": [], "streamed": [],
        }  # fmt: skip

    def _reset_call(self, st: JSONState) -> None:
        st.update({"name": None, "done": {}, "key": None, "is_str": False, "sent": 0})

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> DeltaMessage | None:
        st = state
        in_section, content = self._take(st, delta_text, delta_ids)
        if not in_section:
            return DeltaMessage(content=delta_text)
        buf = st["buf"]
        start = buf.find(self.call_start)
        if start == -1 and st["name"] is None:
            if content is not None:
                return DeltaMessage(content=content)
            st["buf"] = ""
            return None
        head: DeltaMessage | None = None
        if st["name"] is None:
            sep = buf.find(self.sep)
            if sep == -1:
                st["buf"] = buf[start:]
                return None if content is None else DeltaMessage(content=content)
            name = buf[start + len(self.call_start) : sep].strip()
            st["name"] = name
            st["buf"] = buf[sep + len(self.sep) :]
            st["tool"] += 1
            st["id"] = random_tool_call_id()
            head = DeltaMessage(
                content=content,
                tool_calls=[DeltaToolCall(index=st["tool"], id=st["id"], type="function", name=name)],
            )
            if self.call_end not in st["buf"]:
                return head
        return self._incremental(st, head)

    def _incremental(self, st: JSONState, head: DeltaMessage | None) -> DeltaMessage | None:
        complete, args_text, remaining = self._split_call(st["buf"])
        done: dict[str, Any] = st["done"]
        snapshot, _ = self._snapshot(st, args_text)
        diff: str | None = None
        if complete:
            final = dumps(done)
            if st["sent"] < len(final):
                diff = final[st["sent"] :]
            st["prev"].append({"name": st["name"], "arguments": done})
            st["streamed"].append(final)
            self._reset_call(st)
            st["buf"] = remaining
        else:
            diff = self._open_diff(st, snapshot)
        delta: DeltaMessage | None
        if head is not None and diff:
            call = head.tool_calls[0]
            delta = DeltaMessage(
                content=head.content,
                tool_calls=[DeltaToolCall(index=st["tool"], id=st["id"], type="function",
                                          name=call.name, arguments=diff)],
            )
        elif head is not None:
            delta = head
        elif diff:
            delta = DeltaMessage(tool_calls=[DeltaToolCall(index=st["tool"], arguments=diff)])
        else:
            delta = None
        extra = self._drain(st) if complete else []
        if extra:
            if delta is None:
                return DeltaMessage(tool_calls=extra)
            delta.tool_calls.extend(extra)
        return delta

    def _snapshot(self, st: JSONState, args_text: str) -> tuple[str, bool]:
        """The arguments JSON so far (closed pairs, then an open string value without its
        closing quote) and whether such an open string value ends it."""
        name = st["name"] or ""
        done: dict[str, Any] = st["done"]
        last_end = 0
        for pair in self.pairs.pairs(args_text):
            key = pair.key.strip()
            if key not in done:
                done[key] = self._value(pair.value, name, key)
            last_end = pair.end
        tail = args_text[last_end:]
        partial_key: str | None = None
        partial_value: str | None = None
        ks = tail.find(self.key_start)
        if ks != -1:
            ke = tail.find(self.key_end, ks + len(self.key_start))
            if ke != -1:
                partial_key = tail[ks + len(self.key_start) : ke].strip()
                st["key"] = partial_key
                st["is_str"] = schema_types(self._arg_schema(name, partial_key)) == {"string"}
                vs = tail.find(self.val_start, ke)
                if vs != -1 and st["is_str"]:
                    partial_value = tail[vs + len(self.val_start) :]
            else:
                st["key"] = None
                st["is_str"] = False
        parts = [f"{dumps(k)}: {dumps(v)}" for k, v in done.items()]
        open_string = partial_key is not None and partial_value is not None
        if open_string:
            escaped = (
                str(partial_value).replace("\\", "\\\\").replace('"', '\\"')
                .replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
            )  # fmt: skip
            parts.append(f'{dumps(partial_key)}: "{escaped}')
        return "{" + ", ".join(parts) + "}", open_string

    def _drain(self, st: JSONState) -> list[DeltaToolCall]:
        out: list[DeltaToolCall] = []
        while (start := st["buf"].find(self.call_start)) != -1:
            end = st["buf"].find(self.call_end, start)
            if end == -1:
                break
            end += len(self.call_end)
            whole = st["buf"][start:end]
            st["buf"] = st["buf"][end:]
            for call in self._calls(whole):
                st["tool"] += 1
                st["prev"].append({"name": call.name, "arguments": json.loads(call.arguments)})
                st["streamed"].append(call.arguments)
                out.append(DeltaToolCall(index=st["tool"], id=random_tool_call_id(),
                                         type="function", name=call.name, arguments=call.arguments))
        return out

    def finish(self, state: JSONState) -> DeltaMessage | None:
        """As the base, and a call cut off in the chunk that closed the one before it (the
        buffer then holds its `<tool_call>NAME<tool_sep>` unread) is opened here and closed,
        so the whole output in one chunk gives what one token per delta gives."""
        header = self._open_cut_call(state) if state else None
        closing = super().finish(state)
        if header is None:
            return closing
        if closing is not None and closing.tool_calls:
            header.arguments = closing.tool_calls[0].arguments
        return DeltaMessage(tool_calls=[header])

    def _open_cut_call(self, st: JSONState) -> DeltaToolCall | None:
        """Name the call left in the buffer after the last complete one (stream's name step)."""
        if st.get("name") is not None:
            return None
        buf: str = st["buf"]
        start = buf.find(self.call_start)
        sep = buf.find(self.sep, start) if start != -1 else -1
        if sep == -1:
            return None
        st["name"] = buf[start + len(self.call_start) : sep].strip()
        st["buf"] = buf[sep + len(self.sep) :]
        st["tool"] += 1
        st["id"] = random_tool_call_id()
        return DeltaToolCall(index=st["tool"], id=st["id"], type="function", name=st["name"])
