"""The contracts every reasoning and tool parser implements.

A parser sees decoded output text (special tokens kept) plus the request's parse context.
One-shot parsing returns the whole split; streaming parsing advances a plain-dict state
(JSON-serialisable, so it can travel inside `stream_state`) by one chunk at a time.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

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


@dataclass
class ToolCall:
    """One function call: `arguments` is the JSON text exactly as vLLM would emit it."""

    name: str
    arguments: str
    id: str | None = None
    type: str = "function"

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


@dataclass
class DeltaMessage:
    role: str | None = None
    content: str | None = None
    reasoning: str | None = None
    tool_calls: list[DeltaToolCall] = field(default_factory=list)


def random_tool_call_id() -> str:
    """vLLM's random id format: `chatcmpl-tool-` + 32 hex digits."""
    return f"chatcmpl-tool-{secrets.token_hex(16)}"


class ReasoningParser:
    """Splits model output into reasoning and content."""

    name: ClassVar[str] = ""

    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        self.tokenizer = tokenizer
        self.ctx = ctx

    def vocab_id(self, token: str) -> int | None:
        vocab = self.tokenizer.get_vocab()
        return vocab.get(token)

    def is_reasoning_end(self, token_ids: Sequence[int]) -> bool:
        """Whether these ids (usually the prompt) already closed reasoning."""
        raise NotImplementedError

    def extract_reasoning(self, text: str) -> tuple[str | None, str | None]:
        """One-shot split: (reasoning, content)."""
        raise NotImplementedError

    # Streaming: `state` is a plain dict owned by this parser.
    def initial_state(self, prompt_token_ids: Sequence[int] | None) -> JSONState:
        return {}

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> tuple[DeltaMessage | None, bool]:
        """Advance by one chunk: the delta to emit and whether reasoning ended in it."""
        raise NotImplementedError


class ToolParser:
    """Finds tool calls in (post-reasoning) content."""

    name: ClassVar[str] = ""
    # vLLM's id style for this parser: "random" or e.g. "kimi_k2" (`functions.NAME:IDX`).
    tool_call_id_type: ClassVar[str] = "random"

    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        self.tokenizer = tokenizer
        self.ctx = ctx

    def vocab_id(self, token: str) -> int | None:
        vocab = self.tokenizer.get_vocab()
        return vocab.get(token)

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        raise NotImplementedError

    def initial_state(self) -> JSONState:
        return {}

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> DeltaMessage | None:
        raise NotImplementedError
