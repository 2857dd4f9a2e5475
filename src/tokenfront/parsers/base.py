"""The contracts every reasoning and tool parser implements.

A parser sees decoded output text (special tokens kept) plus the request's parse context.
One-shot parsing returns the whole split; streaming parsing advances a plain-dict state
(JSON-serialisable, so it can travel inside `stream_state`) by one chunk at a time.

How the pipeline (`parsers/pipeline.py`) drives a tool parser
------------------------------------------------------------
One-shot: `extract_tool_calls(content)` receives the content left after reasoning was split
off (never None; "" when there is none) and returns `ExtractedToolCalls`. Leave `id` as None
for random ids (the pipeline fills `chatcmpl-tool-<16 hex>`); set it only for deterministic ids
(e.g. Kimi's `functions.NAME:IDX`, use `self.ctx.history_tool_call_cnt` as the first index).
`arguments` must be the JSON text exactly as vLLM emits it (usually
`json.dumps(obj, ensure_ascii=False)`). The pipeline applies tool_choice (none / auto /
required / named), `parallel_tool_calls`, `include_reasoning` and the content null-vs-""
rules, so a tool parser only implements vLLM's `extract_tool_calls` /
`extract_tool_calls_streaming` semantics for tool_choice "auto".

Streaming: the pipeline calls `initial_state()` once per stream and then, for each chunk of
the post-reasoning text, `stream(state, delta_text, delta_ids)`; on the very first call
`delta_text` is all content seen so far (the text after the reasoning end marker), like
vLLM's first `extract_tool_calls_streaming` call after reasoning ends. `state` is a plain
dict that you mutate in place; it must stay JSON-serialisable (str/int/bool/list/dict/None)
and should stay bounded: keep the grammar state and the smallest pending buffer, not the
whole output. Parsers that really need vLLM's `previous_text` / `current_text` may call
`self.accumulate(state, delta_text)` which keeps the text in `state["_text"]` (unbounded,
so prefer a tail buffer where you can). Return `DeltaMessage(content=..., tool_calls=[...])`
or None for "nothing to emit". A `DeltaToolCall` that starts a call carries `id` (use
`self.new_tool_call_id(name)`), `type="function"` and `name`; later ones only `index` and
`arguments`. `finish(state)` is called once after the last chunk (when the generation ended)
and may flush buffered text or argument tails (vLLM's `get_remaining_unstreamed_args` /
`finish_streaming`); it returns a DeltaMessage or None.

Class flags read by the pipeline:
* `supports_required_and_named` - False makes tool_choice required/named fall back to the
  auto path (vLLM: every parser with a `structural_tag_model` under the default
  VLLM_ENFORCE_STRICT_TOOL_CALLING=1, e.g. hermes, kimi_k2, minimax_m2, glm45, ...).
  `forced_json_unless_strict` marks the ones that get the JSON path back when strict tool
  calling is off (`forced_choice`).
* `engine_based` - True for parsers that vLLM implements on its declarative ParserEngine
  (qwen3_coder, kimi_k2, glm45, minimax_m2, seed_oss, ...). With an engine-based tool
  parser (and no or an engine-based reasoning parser) vLLM runs the parser even for
  tool_choice "none" and uses the content it returns (markup removed), and returns the
  parser's content when no call was found.

Exceptions raised while streaming become vLLM's 400 "invalid stream_state" at the endpoint,
so raise (do not swallow) where vLLM's parser raises.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from tokenfront.tokenization.vocab import token_id

JSONState = dict[str, Any]


@dataclass
class ParseContext:
    """What a parser may know about the request (vLLM's `ParseContext` plus runtime facts)."""

    tools: list[dict[str, Any]] | None = None
    tool_choice: str | dict[str, Any] | None = "none"
    parallel_tool_calls: bool = True
    include_reasoning: bool = True
    chat_template_kwargs: dict[str, Any] = field(default_factory=dict)
    history_tool_call_cnt: int = 0
    prompt_token_ids: Sequence[int] | None = None
    enable_auto_tools: bool = False
    # Other request fields a few parsers read (e.g. `skip_special_tokens`, `response_format`).
    extra: dict[str, Any] = field(default_factory=dict)

    def tool_named(self, name: str) -> dict[str, Any] | None:
        for tool in self.tools or ():
            function = tool.get("function") or {}
            if function.get("name") == name:
                return function
        return None

    @property
    def effective_tool_choice(self) -> str | dict[str, Any]:
        """vLLM's request default: "auto" when tools are given, else "none"."""
        if self.tool_choice is None:
            return "auto" if self.tools else "none"
        return self.tool_choice

    @property
    def named_function(self) -> str | None:
        """The forced function name of a named tool_choice, else None."""
        choice = self.tool_choice
        if isinstance(choice, dict):
            function = choice.get("function")
            if isinstance(function, dict) and isinstance(function.get("name"), str):
                return function["name"]
            if isinstance(choice.get("name"), str):
                return choice["name"]
        return None


@dataclass
class ToolCall:
    """One function call: `arguments` is the JSON text exactly as vLLM would emit it."""

    name: str
    arguments: str
    id: str | None = None
    type: str = "function"

    def as_delta(self, index: int, call_id: str) -> DeltaToolCall:
        """The whole call as one streamed delta (a stream that held it until its end)."""
        return DeltaToolCall(
            index=index, id=call_id, type="function", name=self.name, arguments=self.arguments
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": self.type,
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclass
class ExtractedToolCalls:
    tools_called: bool
    tool_calls: list[ToolCall]
    content: str | None


@dataclass
class DeltaToolCall:
    index: int
    id: str | None = None
    name: str | None = None
    arguments: str | None = None
    type: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"index": self.index}
        if self.id is not None:
            out["id"] = self.id
        if self.type is not None or self.id is not None:
            out["type"] = self.type or "function"
        function: dict[str, Any] = {}
        if self.name is not None:
            function["name"] = self.name
        if self.arguments is not None:
            function["arguments"] = self.arguments
        if function:
            out["function"] = function
        return out


def merge_tool_deltas(deltas: list[DeltaToolCall]) -> list[DeltaToolCall]:
    """Join deltas of the same call index into its first one (first id / type / name win,
    arguments concatenate); the list itself when every index occurs once."""
    merged: dict[int, DeltaToolCall] = {}
    parts: dict[int, list[str]] = {}  # arguments joined once at the end
    for delta in deltas:
        first = merged.get(delta.index)
        if first is None:
            merged[delta.index] = delta
            continue
        first.id = first.id if first.id is not None else delta.id
        first.type = first.type if first.type is not None else delta.type
        first.name = first.name if first.name is not None else delta.name
        if delta.arguments is not None:
            parts.setdefault(delta.index, [first.arguments or ""]).append(delta.arguments)
    for index, texts in parts.items():
        merged[index].arguments = "".join(texts)
    return deltas if len(merged) == len(deltas) else list(merged.values())


@dataclass
class DeltaMessage:
    role: str | None = None
    content: str | None = None
    reasoning: str | None = None
    tool_calls: list[DeltaToolCall] = field(default_factory=list)
    # Cohere's inline citations (vLLM's `CohereDeltaMessage.citations`), sent only when present.
    citations: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """vLLM's serialisation: null fields kept, an empty `tool_calls` left out."""
        out: dict[str, Any] = {
            "role": self.role,
            "content": self.content,
            "reasoning": self.reasoning,
        }
        if self.tool_calls:
            out["tool_calls"] = [tc.to_dict() for tc in self.tool_calls]
        if self.citations:
            out["citations"] = list(self.citations)
        return out


def append_delta(
    delta: DeltaMessage | None, more: DeltaMessage | None, *, join_call_fragments: bool = False
) -> DeltaMessage | None:
    """`more` sent in the same chunk after `delta`: texts joined, tool call entries kept apart
    (a later flush's entries follow the chunk's own, as vLLM's end-of-stream flush sends).
    `join_call_fragments`: an argument fragment of the call whose entry comes last (no id, no
    name) joins that entry instead."""
    if more is None:
        return delta
    if delta is None:
        return more
    if more.content:
        delta.content = (delta.content or "") + more.content
    if more.reasoning:
        delta.reasoning = (delta.reasoning or "") + more.reasoning
    if not more.tool_calls:
        return delta
    calls = delta.tool_calls if join_call_fragments else list(delta.tool_calls)
    for tc in more.tool_calls:
        last = calls[-1] if calls else None
        fragment = tc.id is None and tc.name is None
        if join_call_fragments and last is not None and last.index == tc.index and fragment:
            last.arguments = (last.arguments or "") + (tc.arguments or "")
        else:
            calls.append(tc)
    delta.tool_calls = calls
    return delta


class StreamParseError(Exception):
    """A parser failed on a streamed chunk (vLLM answers 400 "invalid stream_state")."""


def random_tool_call_id() -> str:
    """vLLM's random id format: `chatcmpl-tool-` + 16 hex digits."""
    return f"chatcmpl-tool-{secrets.token_hex(8)}"


def make_tool_call_id(id_type: str = "random", name: str | None = None, idx: int | None = None) -> str:
    """vLLM's `make_tool_call_id`: `functions.NAME:IDX` for Kimi-style models, else random."""
    if id_type == "kimi_k2":
        return f"functions.{name}:{idx}"
    return random_tool_call_id()


def parser_build_error(
    parsers: Sequence[type[ReasoningParser] | type[ToolParser]], chat_template_kwargs: dict[str, Any]
) -> str | None:
    """Why vLLM cannot build these parsers for a request's template kwargs (a 400 with that
    text), or None. Some build their grammar through a cache keyed by the raw `enable_thinking`
    value (Qwen3's family, Gemma 4, PLaMo 3: `grammar_cached_on_thinking_switch`), where a list
    or object fails with Python's TypeError text; others refuse kwargs values (`kwargs_error`)."""
    if any(p.grammar_cached_on_thinking_switch for p in parsers):
        try:
            hash(chat_template_kwargs.get("enable_thinking", True))
        except TypeError as exc:
            return str(exc)
    for parser in parsers:
        message = parser.kwargs_error(chat_template_kwargs)
        if message is not None:
            return message
    return None


def refuse_kwargs(parser: ReasoningParser | ToolParser, ctx: ParseContext) -> None:
    """Raise the ValueError vLLM's constructor raises for template kwargs it refuses."""
    message = parser.kwargs_error(ctx.chat_template_kwargs or {})
    if message is not None:
        raise ValueError(message)


class ReasoningParser:
    """Splits model output into reasoning and content.

    Engines in `parsers/engines/` implement this; `parsers/reasoning/*.py` only declare specs.
    """

    name: ClassVar[str] = ""
    # vLLM's `engine_based_streaming`: the pipeline flushes `finish()` on the reasoning end
    # and at the end of the stream, and treats the parser as engine-based for tool_choice.
    engine_based: ClassVar[bool] = False
    grammar_cached_on_thinking_switch: ClassVar[bool] = False  # see `parser_build_error`

    @classmethod
    def kwargs_error(cls, chat_template_kwargs: dict[str, Any]) -> str | None:
        """Why the parser cannot be built for these template kwargs (vLLM's constructor raises;
        the request is a 400 with that text). None: it can."""
        return None

    @classmethod
    def kwargs_after_build(cls, chat_template_kwargs: dict[str, Any]) -> dict[str, Any]:
        """The template kwargs after vLLM's constructor saw them: render reports them in
        `reasoning_parser_kwargs` (a constructor may write its defaults into them)."""
        return chat_template_kwargs

    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        refuse_kwargs(self, ctx)
        self.tokenizer = tokenizer
        self.ctx = ctx
        # The tool parser vLLM builds into the same Parser (set by the pipeline).
        self.paired_tool: type[ToolParser] | None = None

    def vocab_id(self, token: str) -> int | None:
        return token_id(self.tokenizer, token)

    def is_reasoning_end(self, token_ids: Sequence[int]) -> bool:
        """Whether these ids (usually the prompt) already closed reasoning."""
        raise NotImplementedError

    def render_reasoning_ended(self, prompt_token_ids: Sequence[int]) -> bool:
        """Render's `reasoning_ended` verdict on the prompt (usually `is_reasoning_end`)."""
        return self.is_reasoning_end(prompt_token_ids)

    def set_prompt_token_ids(self, prompt_token_ids: Sequence[int]) -> None:
        """One-shot hook: the rendered prompt, before `extract_reasoning`."""
        return

    def stream_starts_ended(
        self, prompt_token_ids: Sequence[int], first_ids: Sequence[int], *, with_tools: bool
    ) -> bool:
        """Whether a stream after this prompt is all content (this parser is not run);
        `first_ids`: the ids of the stream's first chunk; `with_tools`: a tool parser reads
        the content."""
        return self.is_reasoning_end(prompt_token_ids)

    def extract_reasoning(self, text: str) -> tuple[str | None, str | None]:
        """One-shot split: (reasoning, content)."""
        raise NotImplementedError

    def extract_content_ids(self, token_ids: Sequence[int]) -> list[int]:
        """The ids of the chunk that ended reasoning which belong to the content."""
        return list(token_ids)

    # Streaming: `state` is a plain dict owned by this parser, mutated in place.
    def initial_state(self, prompt_token_ids: Sequence[int] | None) -> JSONState:
        return {}

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> tuple[DeltaMessage | None, bool]:
        """Advance by one chunk: the delta to emit and whether reasoning ended in it."""
        raise NotImplementedError

    def finish(self, state: JSONState) -> DeltaMessage | None:
        """Flush held text (engine-based parsers) when reasoning ends or the stream ends."""
        return None

    def fallback_content(self, state: JSONState) -> str | None:
        """Content to promote when the stream ends inside reasoning (rarely used)."""
        return None

    def text_for_tool_parser(self, state: JSONState, text: str) -> str:
        """Streamed text after the reasoning, as the tool parser should see it (one-shot's
        `extract_reasoning` may drop markers from the content it hands over)."""
        return text

    def text_for_tool_parser_flush(self, state: JSONState) -> str:
        """What `text_for_tool_parser` still holds when the stream ends."""
        return ""

    def ids_for_tool_parser(self, state: JSONState, token_ids: list[int]) -> list[int]:
        """The chunk's ids as the tool parser should see them: without those of a marker
        `text_for_tool_parser` dropped (a tool engine waits for the text of an id it lexes)."""
        return token_ids


class ToolParser:
    """Finds tool calls in (post-reasoning) content. See the module docstring."""

    name: ClassVar[str] = ""
    # vLLM's id style for this parser: "random" or e.g. "kimi_k2" (`functions.NAME:IDX`).
    tool_call_id_type: ClassVar[str] = "random"
    supports_required_and_named: ClassVar[bool] = True
    # True where only vLLM's strict tool calling (a structural tag model) turned
    # `supports_required_and_named` off: with VLLM_ENFORCE_STRICT_TOOL_CALLING=0 required /
    # named take the JSON path again.
    forced_json_unless_strict: ClassVar[bool] = False
    engine_based: ClassVar[bool] = False
    grammar_cached_on_thinking_switch: ClassVar[bool] = False  # see `parser_build_error`
    # True where vLLM puts what `finish` sends into the final delta's last tool call entry (its
    # end-of-stream flush appends there, or its engine merges a step's entries per call): a
    # fragment of that same call joins the entry.
    finish_joins_last_call: ClassVar[bool] = False

    def kept_text(self, text: str) -> str:
        """The text a request without tool parsing keeps (`keeps_text_without_tool_choice`)."""
        return text

    def kept_text_stream(self, state: JSONState, text: str, *, final: bool) -> str:
        """`kept_text` of a streamed chunk (`state` is the parser's stream state; `final`: the
        output ends with this chunk)."""
        return self.kept_text(text)

    def kept_text_split(self, state: JSONState, text: str, *, final: bool) -> tuple[str, str]:
        """`kept_text_stream` as (content, reasoning): a parser whose grammar reopens reasoning
        in the content reads a think block there as reasoning."""
        return self.kept_text_stream(state, text, final=final), ""

    @classmethod
    def kwargs_error(cls, chat_template_kwargs: dict[str, Any]) -> str | None:
        """Why the parser cannot be built for these template kwargs (vLLM's constructor raises;
        the request is a 400 with that text). None: it can."""
        return None
    # An engine-based parser that leaves the text alone for a request without tools, where
    # vLLM 0.33.0 ran it and removed the call markup (vLLM issue #55080; asserted for glm45 and
    # qwen3_xml by tests/parser/test_tool_choice_none_preserves_content.py). With tools and
    # tool_choice "none" the markup is still removed (tests/parser/engine/test_replay.py).
    keeps_text_without_tool_choice: ClassVar[bool] = False
    # Markers (start, end) of a call section that such kept text drops when it holds only
    # whitespace: no text is lost, and vLLM 0.33.0 drops it too (engines/empty_sections.py).
    empty_section: ClassVar[tuple[str, str] | None] = None

    @classmethod
    def forced_choice(cls, strict_tool_calling: bool) -> bool:
        """Whether tool_choice required / named read the output as vLLM's forced JSON."""
        return cls.supports_required_and_named or (
            cls.forced_json_unless_strict and not strict_tool_calling
        )

    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        refuse_kwargs(self, ctx)
        self.tokenizer = tokenizer
        self.ctx = ctx

    def vocab_id(self, token: str) -> int | None:
        return token_id(self.tokenizer, token)

    def new_tool_call_id(self, name: str | None = None, idx: int | None = None) -> str:
        """A fresh id in this parser's style (`idx` defaults to the history count)."""
        if idx is None:
            idx = self.ctx.history_tool_call_cnt
        return make_tool_call_id(self.tool_call_id_type, name, idx)

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        raise NotImplementedError

    def initial_state(self) -> JSONState:
        return {}

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> DeltaMessage | None:
        raise NotImplementedError

    def finish(self, state: JSONState) -> DeltaMessage | None:
        return None

    def held_at_end(self, state: JSONState) -> DeltaMessage | None:
        """At the end of a stream, before `finish`: what the parser held back while it could
        not tell what the text was, read now that the output is over. vLLM, which holds
        nothing, sent it in the final chunk's own delta, and so does the pipeline."""
        return None

    def remaining_args(self, state: JSONState) -> str:
        """vLLM's `get_remaining_unstreamed_args`: argument text parsed but not yet streamed.

        At the end of a stream the pipeline appends it to the last tool call of the final
        delta (when that delta carries tool calls)."""
        return ""

    @staticmethod
    def accumulate(state: JSONState, delta_text: str) -> tuple[str, str]:
        """(previous_text, current_text) like vLLM's; keeps the text in `state["_text"]`."""
        previous = state.get("_text", "")
        current = previous + delta_text
        state["_text"] = current
        return previous, current
