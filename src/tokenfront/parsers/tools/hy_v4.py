"""hy_v4: Hunyuan V4 tool calls, the name followed directly by its arguments.

    <tool_calls><tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call></tool_calls>

The marker suffix is read from the vocabulary. Values are typed as in hy_v3. One-shot parsing
is strict: one wrapper, balanced tags, a name per call and nothing but argument pairs, else the
whole output is content. Streaming finds the wrapper by token id, holds back a partial
`<tool_call>` and a partial `</arg_value>` in string values, and sends each call's name and a
growing arguments snapshot (closing brace at `</tool_call>`); several calls may finish in one
chunk.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tokenfront.parsers.base import (
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCalls,
    JSONState,
    ParseContext,
    ToolCall,
    random_tool_call_id,
)
from tokenfront.parsers.engines.json_calls import dumps, no_calls
from tokenfront.parsers.engines.json_in_markers import partial_tag_overlap
from tokenfront.parsers.reasoning.hy_v3 import detect_suffix
from tokenfront.parsers.registry import tool_parser
from tokenfront.parsers.tools.hy_v3 import TruncatedCallCloser, schema_types


class _Malformed(ValueError):
    pass


@tool_parser("hy_v4")
class HYV4ToolParser(TruncatedCallCloser):
    name = "hy_v4"
    supports_required_and_named = False
    # vLLM's test_hy_truncated_stream.py streams a cut-off call as a call, whatever one-shot
    # says (pipeline: a final chunk otherwise sends one-shot's answer for a rejected call)
    streams_rejected_calls = True

    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        super().__init__(tokenizer, ctx)
        sfx = detect_suffix(tokenizer)
        self.calls_start, self.calls_end = f"<tool_calls{sfx}>", f"</tool_calls{sfx}>"
        self.call_start, self.call_end = f"<tool_call{sfx}>", f"</tool_call{sfx}>"
        self.key_start, self.key_end = f"<arg_key{sfx}>", f"</arg_key{sfx}>"
        self.val_start, self.val_end = f"<arg_value{sfx}>", f"</arg_value{sfx}>"
        self.call_re = re.compile(
            rf"{re.escape(self.call_start)}(.*?){re.escape(self.call_end)}", re.DOTALL
        )
        key = rf"{re.escape(self.key_start)}(.*?){re.escape(self.key_end)}"
        value = rf"{re.escape(self.val_start)}(.*?){re.escape(self.val_end)}"
        self.args_re = re.compile(key + value, re.DOTALL)
        # streaming also reads a pair with whitespace between its tags (vLLM's
        # test_hy_truncated_stream.py::test_hy4_truncated_with_whitespace_between_tags)
        self.stream_args_re = re.compile(key + r"\s*" + value, re.DOTALL)
        self.calls_start_id = self.vocab_id(self.calls_start)
        if self.calls_start_id is None or self.vocab_id(self.calls_end) is None:
            raise RuntimeError(
                "HYV4 tool extractor could not locate tool call start/end tokens in the tokenizer!"
            )

    # ---- one-shot (strict) -----------------------------------------------------------------
    def _split(self, body: str) -> tuple[str, str]:
        at = body.find(self.key_start)
        if at == -1:
            return body.strip(), ""
        return body[:at].strip(), body[at:].strip()

    def _strict_calls(self, text: str) -> list[ToolCall]:
        start, end = text.find(self.calls_start), text.find(self.calls_end)
        if start == -1 or end == -1 or end < start:
            raise _Malformed("wrapper")
        block = text[start + len(self.calls_start) : end]
        opened = block.count(self.call_start)
        if opened != block.count(self.call_end):
            raise _Malformed("call count")
        bodies = self.call_re.findall(block)
        if opened != len(bodies):
            raise _Malformed("call body")
        calls = []
        for body in bodies:
            name, args = self._split(body)
            if not name:
                raise _Malformed("empty name")
            if args.count(self.key_start) != args.count(self.key_end) or args.count(
                self.val_start
            ) != args.count(self.val_end):
                raise _Malformed("tag count")
            if self.args_re.sub("", args).strip():
                raise _Malformed("payload")
            values = {k: self._value(v, name, k) for k, v in self.args_re.findall(args)}
            calls.append(ToolCall(name=name, arguments=dumps(values)))
        if not calls:
            raise _Malformed("no calls")
        return calls

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        if self.calls_start not in text:
            return no_calls(text)
        try:
            calls = self._strict_calls(text)
        except Exception:
            return no_calls(text)
        content = text[: text.find(self.calls_start)]
        return ExtractedToolCalls(True, calls, content or None)

    # ---- streaming -----------------------------------------------------------------------
    def initial_state(self) -> JSONState:
        return {
            "buf": "", "seen": False, "closed": False, "tail": "", "tool": -1, "name": None,
            "pairs": [], "sent": 0, "prev": [], "streamed": [],
        }  # fmt: skip

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> DeltaMessage | None:
        st = state
        in_section, content = self._take(st, delta_text, delta_ids)
        if not in_section:
            return DeltaMessage(content=delta_text)
        calls: list[DeltaToolCall] = []
        while True:
            buf = st["buf"]
            start = buf.find(self.call_start)
            if start == -1 and st["name"] is None:
                keep = partial_tag_overlap(buf, self.call_start)
                st["buf"] = buf[len(buf) - keep :] if keep else ""
                break
            new_name: str | None = None
            if st["name"] is None:
                arg_at = buf.find(self.key_start, start)
                end_at = buf.find(self.call_end, start)
                if arg_at == -1 and end_at == -1:
                    st["buf"] = buf[start:]
                    break
                name_end = arg_at if arg_at != -1 else end_at
                new_name = buf[start + len(self.call_start) : name_end].strip()
                st["name"] = new_name
                st["buf"] = buf[name_end:]
                st["tool"] += 1
                if self.call_end not in st["buf"]:
                    calls.append(DeltaToolCall(index=st["tool"], id=random_tool_call_id(),
                                               type="function", name=new_name))
                    break
            call = self._incremental(st, new_name)
            if call is not None:
                calls.append(call)
            if st["name"] is None and st["buf"].startswith(self.call_start):
                continue
            break
        if content is not None or calls:
            return DeltaMessage(content=content, tool_calls=calls)
        return None

    def _incremental(self, st: JSONState, new_name: str | None) -> DeltaToolCall | None:
        complete, args_text, remaining = self._split_call(st["buf"])
        snapshot, _ = self._snapshot(st, args_text)
        diff: str | None = None
        if complete:
            done = dict(st["pairs"])  # a repeated key: the later value wins, as one-shot
            final = dumps(done)
            if final[: st["sent"]] != snapshot[: st["sent"]]:
                # a repeated key was already streamed: keep the sent prefix valid JSON
                final = snapshot
            if st["sent"] < len(final):
                diff = final[st["sent"] :]
            st["prev"].append({"name": st["name"], "arguments": done})
            st["streamed"].append(final)
            st.update({"name": None, "pairs": [], "sent": 0, "buf": remaining})
        else:
            diff = self._open_diff(st, snapshot)
        if new_name is not None:
            return DeltaToolCall(index=st["tool"], id=random_tool_call_id(), type="function",
                                 name=new_name, arguments=diff or None)
        if diff:
            return DeltaToolCall(index=st["tool"], arguments=diff)
        return None

    def _snapshot(self, st: JSONState, args_text: str) -> tuple[str, bool]:
        """The arguments JSON so far: every closed pair in order (a repeated key included),
        then an open string value without its closing quote; and whether that value is open."""
        name = st["name"] or ""
        pairs: list[list[Any]] = st["pairs"]
        last_end = 0
        for i, match in enumerate(self.stream_args_re.finditer(args_text)):
            if i >= len(pairs):
                key = match.group(1).strip()
                pairs.append([key, self._value(match.group(2), name, key)])
            last_end = match.end()
        tail = args_text[last_end:]
        partial_key: str | None = None
        partial_value: str | None = None
        ks = tail.find(self.key_start)
        if ks != -1:
            ke = tail.find(self.key_end, ks + len(self.key_start))
            if ke != -1:
                partial_key = tail[ks + len(self.key_start) : ke].strip()
                vs = tail.find(self.val_start, ke)
                if vs != -1 and schema_types(self._arg_schema(name, partial_key)) == {"string"}:
                    raw = tail[vs + len(self.val_start) :]
                    partial_value = raw[: len(raw) - partial_tag_overlap(raw, self.val_end)]
        parts = [f"{dumps(k)}: {dumps(v)}" for k, v in pairs]
        open_string = partial_key is not None and partial_value is not None
        if open_string:
            parts.append(f'{dumps(partial_key)}: "{dumps(partial_value)[1:-1]}')
        return "{" + ", ".join(parts) + "}", open_string
