"""Composing one reasoning parser and one tool parser into the chat message split.

Mirrors vLLM's `DelegatingParser.parse` / `parse_delta`, `assemble_chat_message_fields` and
`ChatStreamProcessor.step`: tool_choice (none / auto / required / named), auto tool choice,
`parallel_tool_calls=false`, `include_reasoning=false`, content null vs "" and tool-call ids.

Streaming keeps everything in one JSON-serialisable dict (see `ChatOutputParser.stream`);
vLLM rebuilds its parser by replaying all earlier chunks, which gives the same deltas as a
parser that lives on, so the state only holds the grammar state and small pending buffers.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tokenfront.config import ModelOptions
from tokenfront.parsers.base import (
    DeltaMessage,
    DeltaToolCall,
    JSONState,
    ParseContext,
    ReasoningParser,
    StreamParseError,
    ToolCall,
    ToolParser,
    append_delta,
    make_tool_call_id,
    parser_build_error,
    random_tool_call_id,
)
from tokenfront.parsers.engines.content_whitespace import hold_leading_whitespace
from tokenfront.parsers.engines.empty_sections import (
    drop_empty_sections,
    stream_dropping_empty_sections,
)
from tokenfront.parsers.engines.markup_lexer import out_of_vocabulary
from tokenfront.parsers.engines.response_template import (
    ResponseTemplateOutput,
    tool_parsing_enabled,
)
from tokenfront.parsers.engines.response_template import check_tokenizer as check_template_tokenizer
from tokenfront.parsers.registry import UnknownParserError, get_reasoning_parser, get_tool_parser
from tokenfront.parsers.required import (
    parse_required_calls,
    required_calls_delta,
    required_stream_state,
    required_stream_step,
)
from tokenfront.tokenization.vocab import vocab_size


class ParserTokenizerError(ValueError):
    """The configured parsers cannot work with the model's tokenizer (refused at start-up)."""


def _forces_tool_calls(ctx: ParseContext) -> bool:
    return isinstance(ctx.tool_choice, dict) or ctx.tool_choice == "required"


def _blank(text: str | None) -> bool:
    return text is None or not text.strip()


class ChatOutputParser:
    """One served model's configured parsers."""

    # vLLM composes response-template parsers (checking their tokenizer metadata) unless the
    # model reads Harmony.
    composes_response_template: bool = True

    def __init__(
        self,
        tokenizer: Any,
        tool_parser_name: str | None,
        reasoning_parser_name: str | None,
        enable_auto_tools: bool,
        tool_call_id_type: str = "random",
        strict_tool_calling: bool = True,
        model_name: str | None = None,
    ) -> None:
        self.tokenizer = tokenizer
        self.strict_tool_calling = strict_tool_calling
        self.tool_parser_name = tool_parser_name
        self.reasoning_parser_name = reasoning_parser_name
        self.enable_auto_tools = enable_auto_tools
        self.tool_call_id_type = tool_call_id_type
        self.reasoning_cls: type[ReasoningParser] | None = (
            get_reasoning_parser(reasoning_parser_name) if reasoning_parser_name else None
        )
        # vLLM builds the tool parser only with --enable-auto-tool-choice.
        self.tool_cls: type[ToolParser] | None = (
            get_tool_parser(tool_parser_name) if tool_parser_name and enable_auto_tools else None
        )
        self.engine_based = (self.reasoning_cls is None or self.reasoning_cls.engine_based) and (
            self.tool_cls is None or self.tool_cls.engine_based
        )
        self.vocab_size = vocab_size(tokenizer)
        # Whole-output parsers (vLLM's unified `hf` / `beam` response-template parser) read the
        # output in one pass instead of reasoning then tools; they combine only with themselves.
        families = {getattr(c, "whole_output", None) for c in (self.reasoning_cls, self.tool_cls) if c}
        self.whole_output = next(iter(families - {None}), None)
        if len(families) > 1 and not any(f is None or isinstance(f, str) for f in families):
            # Cohere's filter classes (cmd3 / cmd4) mix: vLLM takes the reasoning parser's preset.
            self.whole_output = self.reasoning_cls.whole_output  # type: ignore[union-attr]
        elif self.whole_output is not None and self.composes_response_template:
            if len(families) > 1:
                raise UnknownParserError(
                    f"--reasoning-parser {reasoning_parser_name} and --tool-call-parser "
                    f"{tool_parser_name} cannot be combined"
                )
            if isinstance(self.whole_output, str):
                # (a class, e.g. Cohere's filter, needs no template)
                try:
                    check_template_tokenizer(
                        tokenizer, reasoning_parser_name, tool_parser_name if self.tool_cls else None
                    )
                except ValueError as exc:
                    raise ParserTokenizerError(str(exc)) from exc
        self._check_tokenizer(model_name)

    def _check_tokenizer(self, model_name: str | None) -> None:
        """vLLM's start-up check: the parsers can be built on this tokenizer (their marker
        tokens exist). Raises `ParserTokenizerError` naming the flags, as vLLM refuses to start."""
        try:
            self._reasoning(ParseContext())
            self._tool(ParseContext())
        except Exception as exc:  # noqa: BLE001 - any constructor failure refuses the pair
            raise ParserTokenizerError(self.refusal(model_name, str(exc))) from exc

    def refusal(self, model_name: str | None, reason: str) -> str:
        """vLLM's start-up refusal text for these parsers on a model's tokenizer."""
        flags = [f"--tool-call-parser {self.tool_parser_name}"] if self.tool_cls else []
        flags += [f"--reasoning-parser {self.reasoning_parser_name}"] if self.reasoning_cls else []
        return f"{' and '.join(flags)} cannot be used with the tokenizer of {model_name!r}: {reason}"

    @property
    def active(self) -> bool:
        return self.reasoning_cls is not None or self.tool_cls is not None

    def setup_error(self, chat_template_kwargs: dict[str, Any]) -> str | None:
        """Why vLLM could not build these parsers for a request's template kwargs (None: it could)."""
        parsers = [c for c in (self.reasoning_cls, self.tool_cls) if c is not None]
        return parser_build_error(parsers, chat_template_kwargs)

    # ---- helpers --------------------------------------------------------------------------
    def _reasoning(self, ctx: ParseContext) -> ReasoningParser | None:
        if self.reasoning_cls is None:
            return None
        parser = self.reasoning_cls(self.tokenizer, ctx)
        parser.paired_tool = self.tool_cls
        return parser

    def _tool(self, ctx: ParseContext) -> ToolParser | None:
        tool = self.tool_cls(self.tokenizer, ctx) if self.tool_cls else None
        if tool is not None and self.reasoning_cls is None:
            # vLLM: without a reasoning parser, reasoning markup is plain content to an
            # engine-based tool parser (`skip_reasoning_parsing`).
            tool.skip_reasoning_parsing = True  # type: ignore[attr-defined]
        return tool

    def _id_type(self, tool: ToolParser | None) -> str:
        # vLLM takes the id style from the model config (Kimi models), not from the parser.
        return self.tool_call_id_type

    def keeps_tool_calls(self, ctx: ParseContext) -> bool:
        """vLLM's `keeps_tool_calls`: whether extracted tool calls reach the client."""
        if _forces_tool_calls(ctx):
            return True
        if not (self.enable_auto_tools and self.tool_cls is not None):
            return False
        return ctx.tool_choice == "auto" and bool(ctx.tools)

    def prompt_reasoning_ended(
        self,
        prompt_token_ids: Sequence[int],
        chat_template_kwargs: dict[str, Any] | None = None,
        *,
        include_reasoning: bool = True,
    ) -> bool | None:
        """Render's `reasoning_ended`: True/False from the reasoning parser, None without one."""
        if not include_reasoning:
            return True
        ctx = ParseContext(chat_template_kwargs=dict(chat_template_kwargs or {}))
        parser = self._reasoning(ctx)
        if parser is None:
            return None
        return parser.render_reasoning_ended(list(prompt_token_ids))

    # ---- one-shot -------------------------------------------------------------------------
    def parse(self, text: str, token_ids: Sequence[int], ctx: ParseContext) -> dict[str, Any]:
        """The assistant message fields: role, content, reasoning, tool_calls (dicts).

        `tool_calls` is always a list; vLLM leaves an empty list out of the JSON.
        """
        if self.whole_output is not None:
            whole = self._whole(ctx)
            if isinstance(whole, ResponseTemplateOutput):  # reads a stopping tool closer's id
                reasoning, content, calls = whole.parse(text, token_ids)
            else:
                reasoning, content, calls = whole.parse(text)
        else:
            reasoning, content, calls = self._split(text, ctx)

        if not ctx.include_reasoning:
            reasoning = None
        tool_calls: list[dict[str, Any]] = []
        if self.keeps_tool_calls(ctx):
            if _forces_tool_calls(ctx):
                content = content or ""
            kept = calls or []
            if ctx.parallel_tool_calls is False:
                kept = kept[:1]
            for call in kept:
                if call.id is None:
                    call.id = random_tool_call_id()
                tool_calls.append(call.to_dict())
        return {
            "role": "assistant",
            "content": content,
            "reasoning": reasoning,
            "tool_calls": tool_calls,
        }

    def _split(
        self, text: str, ctx: ParseContext
    ) -> tuple[str | None, str | None, list[ToolCall] | None]:
        reasoning_parser = self._reasoning(ctx)
        tool = self._tool(ctx)
        if reasoning_parser is not None:
            if ctx.prompt_token_ids is not None:
                reasoning_parser.set_prompt_token_ids(ctx.prompt_token_ids)
            reasoning, content = reasoning_parser.extract_reasoning(text)
        else:
            reasoning, content = None, text
        calls, content = self._extract_tool_calls(tool, content, ctx)
        normalizer = getattr(self.reasoning_cls, "output_normalizer", None)
        if normalizer is not None:  # vLLM's family-level output rewrite (MiniCPM-V)
            reasoning, content = normalizer.message(reasoning, content)
        return reasoning, content, calls

    def _whole(self, ctx: ParseContext) -> ResponseTemplateOutput:
        # `whole_output` is a family name of the template parser or a parser class of its own.
        factory: Any = (
            ResponseTemplateOutput if isinstance(self.whole_output, str) else self.whole_output
        )
        return factory(  # type: ignore[no-any-return]
            self.tokenizer,
            ctx,
            parse_reasoning=self.reasoning_cls is not None,
            parse_tools=self.tool_cls is not None and tool_parsing_enabled(ctx, self.enable_auto_tools),
            id_type=self.tool_call_id_type,
        )

    def _extraction_skipped(self, tool: ToolParser, ctx: ParseContext) -> bool:
        """No tool extraction: tool_choice "none", or a request without tools for a parser
        that keeps the text then (its tool_choice left to the parser)."""
        if ctx.tool_choice == "none":
            return True
        return tool.keeps_text_without_tool_choice and self.engine_based and not ctx.tools

    @staticmethod
    def _keeps_text(tool: ToolParser, ctx: ParseContext) -> bool:
        """A request without tools whose text the parser keeps (`kept_text` still applies)."""
        return tool.keeps_text_without_tool_choice and not ctx.tools

    def _markup_stripped(self, tool: ToolParser, ctx: ParseContext) -> bool:
        """Whether a skipped extraction still runs the parser for the content it returns
        (markup removed, calls dropped), as vLLM 0.33.0 does for engine-based pipelines;
        a parser that keeps the text does so only for requests without tools."""
        return self.engine_based and not self._keeps_text(tool, ctx)

    def _extract_tool_calls(
        self, tool: ToolParser | None, content: str | None, ctx: ParseContext
    ) -> tuple[list[ToolCall] | None, str | None]:
        if tool is None:
            return [], content
        if self._extraction_skipped(tool, ctx):
            if self._markup_stripped(tool, ctx) and content is not None:
                return [], tool.extract_tool_calls(content).content
            if tool.empty_section is not None and content is not None:
                content = drop_empty_sections(content, *tool.empty_section)
            if content is not None and self.engine_based and self._keeps_text(tool, ctx):
                content = tool.kept_text(content)  # the engine still drops stray specials
            return [], content
        choice = ctx.tool_choice
        supports = tool.forced_choice(self.strict_tool_calling)
        named = ctx.named_function if isinstance(choice, dict) else None
        required = choice == "required"
        auto = self.enable_auto_tools and (
            choice == "auto" or choice is None or (not supports and (named is not None or required))
        )
        id_type = self._id_type(tool)
        counter = [ctx.history_tool_call_cnt]

        def forced_id(name: str) -> str | None:
            if id_type != "kimi_k2":
                return None
            counter[0] += 1
            return make_tool_call_id(id_type, name, counter[0] - 1)

        if named is not None and supports:
            if _blank(content):
                return [], None
            return [ToolCall(name=named, arguments=content or "", id=forced_id(named))], None
        if required and supports:
            return [
                ToolCall(name=name, arguments=args, id=forced_id(name))
                for name, args in parse_required_calls(content or "")
            ], None
        if auto:
            info = tool.extract_tool_calls(content if content is not None else "")
            if info.tools_called:
                new_content = info.content
                if new_content and not new_content.strip():
                    new_content = None
                return list(info.tool_calls), new_content
            if (required or named is not None) and _blank(content):
                return [], None
            if self.engine_based or (content and getattr(tool, "content_without_calls_parsed", False)):
                # the parser's own content (vLLM's engine parsers; tool parsers whose tests
                # assert it: docs/deviations.md; an empty output stays vLLM's "")
                return None, info.content or None
            return None, content
        return [], content

    # ---- streaming ------------------------------------------------------------------------
    def stream(
        self,
        state: JSONState | None,
        delta_text: str,
        delta_ids: Sequence[int],
        ctx: ParseContext,
        *,
        finished: bool,
    ) -> tuple[DeltaMessage | None, JSONState]:
        """Advance one streamed chunk; `state` is None on the first chunk.

        `delta_text` is the chunk's text (stop token left out), `delta_ids` all its ids,
        `finished` whether the chunk carries a finish_reason. The returned state is a plain
        JSON dict; `state["tools_streamed"]` tells whether tool calls reached the client
        (for finish_reason "tool_calls"). Raises `StreamParseError` where vLLM's parser
        raised (the endpoint answers 400 "invalid stream_state").
        """
        try:
            return self._stream(state, delta_text, list(delta_ids), ctx, finished)
        except StreamParseError:
            raise
        except Exception as exc:  # parser failures surface as a bad stream state
            raise StreamParseError(str(exc) or type(exc).__name__) from exc

    def _new_state(self, ctx: ParseContext) -> JSONState:
        return {
            "r": None,
            "t": None,
            "re": False,
            "ro": False,  # the reasoning ended in the output (not in the prompt)
            "ts": False,
            "pc": False,
            "fr": False,
            "hist": ctx.history_tool_call_cnt,
            "n": 0,
            "req": None,
            "tools_streamed": False,
            # the output's text and ids while no delta has sent anything yet (None after)
            "quiet": ["", []],
        }

    def _stream(
        self,
        state: JSONState | None,
        delta_text: str,
        delta_ids: list[int],
        ctx: ParseContext,
        finished: bool,
    ) -> tuple[DeltaMessage | None, JSONState]:
        st = self._new_state(ctx) if state is None else state
        delta: DeltaMessage | None
        if not delta_text and not delta_ids and not st["n"]:
            delta = DeltaMessage()  # finished without output: sent unparsed
        elif self.whole_output is not None:
            whole = self._whole(ctx)
            if isinstance(whole, ResponseTemplateOutput):  # reads a stopping tool closer's id
                delta, st["w"] = whole.stream(st.get("w"), delta_text, finished, delta_ids)
            else:
                delta, st["w"] = whole.stream(st.get("w"), delta_text, finished)
        else:
            delta = self._parse_delta(st, delta_text, delta_ids, ctx, finished)
            normalizer = getattr(self.reasoning_cls, "output_normalizer", None)
            if normalizer is not None:
                if "norm" not in st:
                    st["norm"] = normalizer.initial_state()
                delta = normalizer.delta(st["norm"], delta, finished)
            delta = self._quiet_output(st, delta, delta_text, delta_ids, ctx, finished)
            if delta is not None and delta.tool_calls:
                if self.keeps_tool_calls(ctx):
                    st["tools_streamed"] = True
                else:
                    delta.tool_calls = []
                    if not delta.content and not delta.reasoning:
                        delta = None
        st["n"] += len(delta_ids)
        if delta is not None and ctx.parallel_tool_calls is False and delta.tool_calls:
            delta.tool_calls = [tc for tc in delta.tool_calls if tc.index == 0]
        return delta, st

    def _quiet_output(
        self,
        st: JSONState,
        delta: DeltaMessage | None,
        delta_text: str,
        delta_ids: list[int],
        ctx: ParseContext,
        finished: bool,
    ) -> DeltaMessage | None:
        """A stream whose final chunk is the first to send anything and opens a call that
        the one-shot reading of the whole output rejects: that chunk sends one-shot's answer
        instead (nothing reached the client before, so no streamed output is contradicted).
        Only when both read the same reasoning: a one-shot reading that differs there (vLLM's
        one-shot reasoning parsers ignore a prompt that closed the reasoning) rejects no call."""
        quiet = st.get("quiet")
        if quiet is None:
            return delta
        auto = ctx.tool_choice == "auto" and self.keeps_tool_calls(ctx)
        opted_out = getattr(self.tool_cls, "streams_rejected_calls", False)
        if not auto or not ctx.include_reasoning or opted_out:
            st["quiet"] = None  # (hidden reasoning would be held here as if nothing were sent)
            return delta
        if finished and delta is not None and any(tc.name for tc in delta.tool_calls or ()):
            message = self.parse(quiet[0] + delta_text, quiet[1] + delta_ids, ctx)
            same_reasoning = (message["reasoning"] or None) == (delta.reasoning or None)
            if not message["tool_calls"] and same_reasoning:
                delta = DeltaMessage(
                    content=message["content"] or None, reasoning=message["reasoning"] or None
                )
        if delta is not None and (delta.content or delta.reasoning or delta.tool_calls):
            st["quiet"] = None
        else:
            quiet[0] += delta_text
            quiet[1].extend(delta_ids)
        return delta

    def _parse_delta(
        self,
        st: JSONState,
        delta_text: str,
        delta_ids: list[int],
        ctx: ParseContext,
        finished: bool,
    ) -> DeltaMessage | None:
        rp = self._reasoning(ctx)
        tool = self._tool(ctx)
        if rp is not None and st["r"] is None:
            st["r"] = rp.initial_state(ctx.prompt_token_ids)
        if tool is not None and st["t"] is None:
            st["t"] = tool.initial_state()

        if not st["pc"] and ctx.prompt_token_ids is not None:
            st["pc"] = True
            if rp is None or rp.stream_starts_ended(
                list(ctx.prompt_token_ids), delta_ids, with_tools=tool is not None
            ):
                st["re"] = True

        delta: DeltaMessage | None = None
        transitioned = False
        tool_text, tool_ids = delta_text, delta_ids
        if rp is not None and not st["re"]:
            delta, ended = rp.stream(st["r"], delta_text, delta_ids)
            ends_at_finish = getattr(rp, "ends_at_finish", None)
            held_end = False
            if finished and not ended and ends_at_finish is not None:
                # text the reasoning parser held back turns out to end the reasoning; its
                # token ids are gone, so the tool parser reads its markers from the text
                ended = held_end = bool(ends_at_finish(st["r"]))
            if ended:
                st["re"] = st["ro"] = True
                transitioned = True
                tool_ids = [] if held_end else rp.extract_content_ids(delta_ids)
                held_ids = getattr(rp, "held_content_ids", None)
                if held_ids is not None and not held_end:  # a marker held from earlier chunks
                    tool_ids = held_ids(st["r"]) + tool_ids
                flushed = rp.finish(st["r"]) if rp.engine_based else None
                tool_text = ((delta.content if delta else None) or "") + (
                    (flushed.content if flushed else None) or ""
                )
                if tool is not None:
                    if delta is not None:
                        delta.content = None
                elif tool_text:
                    delta = delta or DeltaMessage()
                    delta.content = tool_text
                if tool is None and hasattr(rp, "content_after_reasoning"):
                    delta = _post_reasoning(rp, st["r"], delta)

        if tool is not None and st["re"]:
            st["ts"] = True
            if rp is not None and st.get("ro"):
                tool_text = rp.text_for_tool_parser(st["r"], tool_text)
                tool_ids = rp.ids_for_tool_parser(st["r"], tool_ids)
                if finished:
                    tool_text += rp.text_for_tool_parser_flush(st["r"])
            batch_reasoning = delta.reasoning if delta else None
            delta = self._tool_delta(st, tool, tool_text, tool_ids, ctx, finished)
            if batch_reasoning:
                if delta is None:
                    delta = DeltaMessage(reasoning=batch_reasoning)
                elif not delta.reasoning:
                    delta.reasoning = batch_reasoning
            if delta is not None and delta.tool_calls:
                st["hist"] += sum(tc.id is not None for tc in delta.tool_calls)

        in_reasoning = rp is not None and not st["re"]
        in_tools = tool is not None and st["re"]
        if delta is None and not transitioned and not in_reasoning and not in_tools:
            delta = DeltaMessage(content=delta_text)
            if rp is not None and hasattr(rp, "content_after_reasoning"):
                # vLLM's KimiK3Parser: without a tool parser the reasoning parser rewrites
                # the post-reasoning content (its channel wrappers removed).
                delta = _post_reasoning(rp, st["r"], delta)

        if finished:
            # vLLM's finalize_generation: a stream that ends inside reasoning may promote
            # text to content (`get_streaming_fallback_content`).
            if rp is not None and not st["re"]:
                promoted = rp.fallback_content(st["r"])
                if promoted:
                    delta = delta or DeltaMessage()
                    delta.content = (delta.content or "") + promoted
            if tool is None and st["re"] and hasattr(rp, "content_after_reasoning_flush"):
                # text the post-reasoning hook held back as a possible marker start
                held = rp.content_after_reasoning_flush(st["r"])  # type: ignore[union-attr]
                if held:
                    delta = delta or DeltaMessage()
                    delta.content = (delta.content or "") + held
            if tool is not None and st["t"]:
                delta = append_delta(delta, tool.held_at_end(st["t"]))
            if tool is not None and delta is not None and delta.tool_calls and not st["fr"]:
                # (a forced tool_choice streams the calls itself: the parser holds none)
                last = delta.tool_calls[-1]
                last.arguments = (last.arguments or "") + tool.remaining_args(st["t"])
            delta = self._flush(st, rp, tool, delta)

        if delta is not None and not ctx.include_reasoning:
            delta.reasoning = None
            if not delta.content and not delta.tool_calls:
                delta = None
        return delta

    def _flush(
        self,
        st: JSONState,
        rp: ReasoningParser | None,
        tool: ToolParser | None,
        delta: DeltaMessage | None,
    ) -> DeltaMessage | None:
        if rp is not None and rp.engine_based and not st["re"]:
            delta = append_delta(delta, rp.finish(st["r"]))
        if tool is not None:
            delta = append_delta(
                delta, tool.finish(st["t"]), join_call_fragments=tool.finish_joins_last_call
            )
        return delta

    def _tool_delta(
        self,
        st: JSONState,
        tool: ToolParser,
        text: str,
        ids: list[int],
        ctx: ParseContext,
        finished: bool,
    ) -> DeltaMessage | None:
        if self._extraction_skipped(tool, ctx):
            if self._markup_stripped(tool, ctx):
                delta = tool.stream(st["t"], text, ids)
                if delta is not None:
                    delta.tool_calls = []
                return delta
            if self.engine_based and out_of_vocabulary(ids, self.vocab_size):
                # vLLM's engine still scans the chunk with extraction skipped: an id its
                # scanner decodes and the tokenizer cannot fails the chunk as it does there
                # (a held tail makes it decode a chunk with text)
                held = st["t"].get("kh", "") if text else ""
                tool.stream(tool.initial_state(), held + text, ids)
            kept = self.engine_based and self._keeps_text(tool, ctx)
            reasoning = ""
            if kept:
                text, reasoning = tool.kept_text_split(st["t"], text, final=finished)
            if tool.empty_section is not None:  # "kept": text held as a possible empty section
                text, st["kept"] = stream_dropping_empty_sections(
                    st.get("kept", ""), text, *tool.empty_section, final=finished
                )
            if kept:
                text = hold_leading_whitespace(st["t"], text, finished, held="kd", seen="kn")
            if text or reasoning:
                return DeltaMessage(content=text or None, reasoning=reasoning or None)
            return None
        choice = ctx.tool_choice
        supports = tool.forced_choice(self.strict_tool_calling)
        named = ctx.named_function if isinstance(choice, dict) else None
        id_type = self._id_type(tool)
        if supports and named is not None:
            if st["fr"]:
                return DeltaMessage(tool_calls=[DeltaToolCall(index=0, arguments=text)])
            st["fr"] = True
            call = DeltaToolCall(
                index=0,
                id=make_tool_call_id(id_type, named, st["hist"]),
                type="function",
                name=named,
                arguments=text,
            )
            return DeltaMessage(tool_calls=[call])
        if supports and choice == "required":
            if self.engine_based:  # vLLM's engine parsers scan each chunk on its own
                delta, st["fr"] = required_calls_delta("", text, st["hist"], id_type)
                return delta
            if not st["req"]:
                st["req"] = required_stream_state()
            delta = required_stream_step(st["req"], text, st["hist"], id_type)
            st["fr"] = st["req"]["any"]
            return delta
        return tool.stream(st["t"], text, ids)


def _post_reasoning(
    rp: ReasoningParser, state: JSONState, delta: DeltaMessage | None
) -> DeltaMessage | None:
    """Post-reasoning content through the reasoning parser's `content_after_reasoning` hook."""
    if delta is None:
        return None
    if delta.content is not None:
        delta.content = rp.content_after_reasoning(state, delta.content)  # type: ignore[attr-defined]
    if (
        delta.role is None
        and delta.content is None
        and delta.reasoning is None
        and not delta.tool_calls
    ):
        return None
    return delta


_KIMI_MODEL_TYPES = ("kimi_k2", "kimi_k25", "kimi_k3")


def tool_call_id_type(model_dir: str | None) -> str:
    """vLLM's `get_tool_call_id_type`: Kimi models number their ids `functions.NAME:IDX`."""
    if not model_dir:
        return "random"
    try:
        config = json.loads((Path(model_dir) / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "random"
    types = {config.get("model_type"), (config.get("text_config") or {}).get("model_type")}
    return "kimi_k2" if types & set(_KIMI_MODEL_TYPES) else "random"


def build_output_parser(options: ModelOptions, tokenizer: Any) -> ChatOutputParser | None:
    """The parser for a served model, or None when no parser is configured."""
    if not options.tool_call_parser and not options.reasoning_parser:
        return None
    parser = ChatOutputParser(
        tokenizer,
        options.tool_call_parser,
        options.reasoning_parser,
        options.enable_auto_tool_choice,
        tool_call_id_type(options.model),
        options.strict_tool_calling,
        model_name=options.model,
    )
    # vLLM: a tool parser without --enable-auto-tool-choice and no reasoning parser is none.
    return parser if parser.active else None


def dumps_arguments(value: Any) -> str:
    """Arguments JSON as vLLM re-serialises it (`json.dumps(..., ensure_ascii=False)`)."""
    return json.dumps(value, ensure_ascii=False)
