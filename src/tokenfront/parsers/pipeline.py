"""Composing one reasoning parser and one tool parser into the chat message split.

(Interface fixed here; the parser-core work fills in the semantics.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tokenfront.config import ModelOptions
from tokenfront.parsers.base import DeltaMessage, JSONState, ParseContext


class ChatOutputParser:
    """One served model's configured parsers."""

    def __init__(
        self,
        tokenizer: Any,
        tool_parser_name: str | None,
        reasoning_parser_name: str | None,
        enable_auto_tools: bool,
    ) -> None:
        self.tokenizer = tokenizer
        self.tool_parser_name = tool_parser_name
        self.reasoning_parser_name = reasoning_parser_name
        self.enable_auto_tools = enable_auto_tools

    def parse(self, text: str, token_ids: Sequence[int], ctx: ParseContext) -> dict[str, Any]:
        """The assistant message fields: role, content, reasoning, tool_calls (dicts)."""
        raise NotImplementedError

    def stream(
        self,
        state: JSONState | None,
        delta_text: str,
        delta_ids: Sequence[int],
        ctx: ParseContext,
        *,
        finished: bool,
    ) -> tuple[DeltaMessage | None, JSONState]:
        """Advance one streamed chunk; `state` is None on the first chunk."""
        raise NotImplementedError


def build_output_parser(options: ModelOptions, tokenizer: Any) -> ChatOutputParser | None:
    """The parser for a served model, or None when no parser is configured."""
    if not options.tool_call_parser and not options.reasoning_parser:
        return None
    return ChatOutputParser(
        tokenizer,
        options.tool_call_parser,
        options.reasoning_parser,
        options.enable_auto_tool_choice,
    )
