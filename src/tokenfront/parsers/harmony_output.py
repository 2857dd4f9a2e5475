"""Chat output of gpt-oss models (model_type `gpt_oss`): Harmony messages read from token ids.

On a gpt-oss model vLLM 0.33.0 replaces the configured parsers by its Harmony parser (the
`openai` tool parser and `openai_gptoss` reasoning parser only decide whether tool calls and
reasoning are reported; the reasoning parser defaults to `openai_gptoss`, so a gpt-oss model
always reads Harmony). Output is split into Harmony messages from the token ids, not the text:

- `analysis` messages are reasoning, `final` messages (and `commentary` ones without a
  recipient) are content, several of each joined with newlines;
- a message addressed to a function (`to=functions.NAME`, or any recipient that is not a
  built-in tool) is a tool call, its JSON arguments re-serialised with `json.dumps` defaults
  (kept as written when they do not parse or the content type is not JSON);
- a token the reader rejects (a header that does not read, anything but `<|start|>` between
  messages) ends the chunk: the tokens since the last complete message and the rest of the
  chunk are decoded as `final` content and the reader starts over, as vLLM after 0.33.0
  (#51977) and its `tests/parser/test_harmony.py::test_process_chunk_recovers_from_malformed_header`
  have it (0.33.0 skips the token: the message is lost);
- an output that ends inside a message header is recovered as `final` content: the tokens
  since the last complete message, decoded. A header that is only the next turn's opening
  (`<|start|>` and perhaps a role, what rendering a conversation for completion appends) adds
  nothing: vLLM's harmony parser tests assert that (tests/parser/test_harmony_parser.py::TestParse);
  0.33.0 returns it as content.

Streaming reports each token's text by the channel and recipient of the message it belongs to;
a tool call opens (name, empty arguments) at its header's `<|message|>`. JSON arguments are
respaced as they stream (`engines.json_respace`), so valid arguments end spaced as one-shot's
`json.dumps` has them (vLLM's one-shot tests assert that; 0.33.0 streams them as written, which
is the same text when they are written that way). Messages of one kind are not joined with a
newline in the stream: vLLM's streaming test (`TestParseDelta::test_malformed_msgs_recovers_raw_content`)
asserts each message's text arrives alone.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from tokenfront.config import ModelOptions
from tokenfront.parsers.base import (
    DeltaMessage,
    DeltaToolCall,
    JSONState,
    ParseContext,
    StreamParseError,
    random_tool_call_id,
)
from tokenfront.parsers.engines.channels import is_function_recipient
from tokenfront.parsers.engines.harmony_tokens import (
    ROLES,
    START,
    HarmonyError,
    HarmonyReader,
    Message,
    new_state,
)
from tokenfront.parsers.engines.json_respace import finish, new_respace, respace
from tokenfront.parsers.pipeline import ChatOutputParser, ParserTokenizerError, tool_call_id_type
from tokenfront.parsers.registry import get_reasoning_parser, get_tool_parser

# (delta, channel, recipient, completed message, content type) of one accepted token.
Segment = tuple[str, str | None, str | None, Message | None, str | None]

HARMONY_MODEL_TYPES = frozenset({"gpt_oss"})
# vLLM's gpt-oss model config sets this reasoning parser when none is given.
DEFAULT_REASONING_PARSER = "openai_gptoss"
HARMONY_TOOL_PARSER = "openai"


def normalize_recipient(recipient: str | None) -> str | None:
    """A recipient cut before a stray `<|constrain|>` (None when nothing is left)."""
    if recipient is None:
        return None
    at = recipient.find("<|constrain|>")
    if at == -1:
        return recipient
    return recipient[:at].rstrip() or None


def bare_turn_start(text: str) -> bool:
    """`<|start|>` alone or with a role word: a next turn opened and cut before its header."""
    if not text.startswith(START):
        return False
    rest = text[len(START) :].strip()
    return not rest or rest in ROLES


def segment_kind(channel: str | None, recipient: str | None) -> str:
    if recipient and is_function_recipient(recipient):
        return "tool"
    if channel == "analysis":
        return "reasoning"
    if channel == "final" or (channel == "commentary" and recipient is None):
        return "content"
    return "ignore"


def is_json_type(content_type: str | None) -> bool:
    """Arguments one-shot re-serialises when they parse (no content type, or a JSON one)."""
    return content_type is None or "json" in content_type


def tool_arguments(text: str, content_type: str | None) -> str:
    if not is_json_type(content_type):
        return text
    try:
        return json.dumps(json.loads(text))
    except ValueError:
        return text


class HarmonyOutputParser(ChatOutputParser):
    """The configured parsers' switches, with Harmony message reading."""

    composes_response_template = False  # vLLM's Harmony path builds the parsers as they are

    def _check_tokenizer(self, model_name: str | None) -> None:
        """Harmony reads with the gpt-oss parsers only (vLLM refuses any other at start-up)."""
        super()._check_tokenizer(model_name)
        for cls, wanted, kind in (
            (self.reasoning_cls, get_reasoning_parser(DEFAULT_REASONING_PARSER), "GptOssReasoningParser"),
            (self.tool_cls, get_tool_parser(HARMONY_TOOL_PARSER), "GptOssToolParser"),
        ):
            if cls is not None and cls is not wanted:
                reason = f"Harmony requires {kind}, got {cls.__name__}."
                raise ParserTokenizerError(self.refusal(model_name, reason))

    @property
    def reader(self) -> HarmonyReader:
        reader: HarmonyReader | None = getattr(self, "_reader", None)
        if reader is None:
            reader = self._reader = HarmonyReader(self.tokenizer)
        return reader

    # ---- reading tokens -------------------------------------------------------------------
    def _feed(self, st: JSONState, token_ids: Sequence[int]) -> list[Segment]:
        """(delta, channel, recipient, completed message, content type) for each accepted token."""
        reader = self.reader
        out = []
        for position, token_id in enumerate(token_ids):
            try:
                done = reader.process(st, token_id)
            except HarmonyError:
                out += self._recover(st, token_ids[position:])
                break
            if done is not None:
                done.recipient = normalize_recipient(done.recipient)
                st["cur"] = []
            elif st["mode"] != "body":
                st["cur"].append(token_id)
            delta = (st["delta"] or "") if st["mode"] == "body" else ""
            recipient = normalize_recipient(reader.recipient(st))
            out.append((delta, reader.channel(st), recipient, done, reader.content_type(st)))
        return out

    def _recover(self, st: JSONState, rest: Sequence[int]) -> list[Segment]:
        """The rejected message's tokens and `rest` as one `final` message; the reader restarts."""
        text = self.tokenizer.decode([*st["cur"], *rest])
        keep_text = st["text"] is not None
        st.clear()
        st.update(new_state(keep_text=keep_text))
        done = Message("assistant", "final", None, None, text)
        return [(text, "final", None, None, None), ("", "final", None, done, None)]

    def _end(self, st: JSONState) -> list[Segment]:
        try:
            done = self.reader.process_eos(st)
            if done is not None:
                done.recipient = normalize_recipient(done.recipient)
        except HarmonyError:
            text = self.tokenizer.decode(st["cur"])
            if bare_turn_start(text):
                return []
            done = Message("assistant", "final", None, None, text)
            return [(text, "final", None, None, None), ("", "final", None, done, None)]
        return [] if done is None else [("", done.channel, done.recipient, done, None)]

    # ---- one-shot -------------------------------------------------------------------------
    def parse(self, text: str, token_ids: Sequence[int], ctx: ParseContext) -> dict[str, Any]:
        st = new_state(keep_text=True)
        segments = self._feed(st, token_ids) + self._end(st)
        reasoning: list[str] = []
        content: list[str] = []
        calls: list[dict[str, Any]] = []
        for _, _, _, msg, _ in segments:
            if msg is None or msg.role != "assistant":
                continue
            kind = segment_kind(msg.channel, msg.recipient)
            if kind == "reasoning" and self.reasoning_cls is not None and msg.text:
                reasoning.append(msg.text)
            elif kind == "content" and msg.text:
                content.append(msg.text)
            elif kind == "tool" and self.tool_cls is not None:
                name = (msg.recipient or "").removeprefix("functions.")
                calls.append({"name": name, "arguments": tool_arguments(msg.text, msg.content_type)})
        message_content = "\n".join(content) or None
        message_reasoning = ("\n".join(reasoning) or None) if ctx.include_reasoning else None
        tool_calls: list[dict[str, Any]] = []
        if self.keeps_tool_calls(ctx):
            if isinstance(ctx.tool_choice, dict) or ctx.tool_choice == "required":
                message_content = message_content or ""
            kept = calls[:1] if ctx.parallel_tool_calls is False else calls
            tool_calls = [
                {"id": random_tool_call_id(), "type": "function", "function": call} for call in kept
            ]
        return {
            "role": "assistant",
            "content": message_content,
            "reasoning": message_reasoning,
            "tool_calls": tool_calls,
        }

    # ---- streaming ------------------------------------------------------------------------
    @staticmethod
    def _arguments(st: JSONState, delta: str) -> str:
        """A call's argument text as streamed: JSON respaced as one-shot's `json.dumps`."""
        scan = st.get("args")
        return delta if scan is None or not delta else respace(scan, delta)

    @staticmethod
    def _arguments_end(st: JSONState) -> str:
        """Whitespace held back from a call whose arguments ended unfinished."""
        scan = st.get("args")
        if scan is None:
            return ""
        st["args"] = None
        return finish(scan)

    def stream(
        self,
        state: JSONState | None,
        delta_text: str,
        delta_ids: Sequence[int],
        ctx: ParseContext,
        *,
        finished: bool,
    ) -> tuple[DeltaMessage | None, JSONState]:
        st: JSONState = state if state is not None else {
            "h": new_state(keep_text=False),
            "next": 0,
            "n": 0,
            "tools_streamed": False,
        }
        try:
            delta = self._step(st, list(delta_ids), ctx, finished, bool(delta_text))
        except StreamParseError:
            raise
        except Exception as exc:  # parser failures surface as a bad stream state
            raise StreamParseError(str(exc) or type(exc).__name__) from exc
        st["n"] += len(delta_ids)
        return delta, st

    def _step(
        self, st: JSONState, ids: list[int], ctx: ParseContext, finished: bool, has_text: bool
    ) -> DeltaMessage | None:
        if not has_text and not ids and not st["n"]:
            return DeltaMessage()  # finished without output: sent unparsed
        hs = st["h"]
        prev = normalize_recipient(self.reader.recipient(hs))
        segments = self._feed(hs, ids)
        if finished:
            segments += self._end(hs)
        content = reasoning = ""
        calls: list[DeltaToolCall] = []
        for delta, channel, recipient, done, content_type in segments:
            if done is not None:
                prev = None
                tail = self._arguments_end(st)
                if tail:
                    if calls and calls[-1].index == st["next"] - 1:
                        calls[-1].arguments = (calls[-1].arguments or "") + tail
                    else:
                        calls.append(DeltaToolCall(index=st["next"] - 1, arguments=tail))
                continue
            kind = segment_kind(channel, recipient)
            if kind == "reasoning" and self.reasoning_cls is not None:
                reasoning += delta
            elif kind == "content":
                content += delta
            elif kind == "tool" and self.tool_cls is not None:
                if prev != recipient:
                    st["args"] = new_respace() if is_json_type(content_type) else None
                    delta = self._arguments(st, delta)
                    name = (recipient or "").removeprefix("functions.")
                    calls.append(
                        DeltaToolCall(
                            index=st["next"],
                            id=random_tool_call_id(),
                            type="function",
                            name=name,
                            arguments=delta,
                        )
                    )
                    st["next"] += 1
                    prev = recipient
                elif delta := self._arguments(st, delta):
                    if calls:
                        calls[-1].arguments = (calls[-1].arguments or "") + delta
                    else:
                        calls.append(DeltaToolCall(index=st["next"] - 1, arguments=delta))
        if finished:
            st["next"] = 0
            st["args"] = None
        if not content and not reasoning and not calls:
            return None
        out = DeltaMessage(content=content or None, reasoning=reasoning or None, tool_calls=calls)
        if not ctx.include_reasoning:
            out.reasoning = None
            if not out.content and not out.tool_calls:
                return None
        if out.tool_calls:
            if self.keeps_tool_calls(ctx):
                st["tools_streamed"] = True
            else:
                out.tool_calls = []
                if not out.content and not out.reasoning:
                    return None
        if ctx.parallel_tool_calls is False and out.tool_calls:
            out.tool_calls = [tc for tc in out.tool_calls if tc.index == 0]
        return out


def default_reasoning_parser(options: ModelOptions, model_type: str) -> str | None:
    """vLLM's gpt-oss model config sets `openai_gptoss` when no reasoning parser is given."""
    if options.reasoning_parser or model_type not in HARMONY_MODEL_TYPES:
        return options.reasoning_parser
    return DEFAULT_REASONING_PARSER


def harmony_parser_for(options: ModelOptions, tokenizer: Any, model_type: str) -> HarmonyOutputParser | None:
    """vLLM's choice on a gpt-oss model: Harmony reading, with `openai_gptoss` reasoning by default.

    None for other models (their parsers are built as configured).
    """
    if model_type not in HARMONY_MODEL_TYPES:
        return None
    return HarmonyOutputParser(
        tokenizer,
        options.tool_call_parser,
        options.reasoning_parser or DEFAULT_REASONING_PARSER,
        options.enable_auto_tool_choice,
        tool_call_id_type(options.model),
        model_name=options.model,
    )
