"""poolside_v1: deepseek_v3 reasoning whose prompt check stops at the `<assistant>` token.

A `</think>` earlier in the conversation (another turn, a tool description) no longer counts as
"reasoning already ended": the backward walk over the prompt ends at the start of the current
assistant message. The tokenizer must know `<assistant>`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tokenfront.parsers.base import ParseContext
from tokenfront.parsers.engines.reasoning_tokens import ThinkTokensParser
from tokenfront.parsers.reasoning.deepseek import _Switch
from tokenfront.parsers.registry import reasoning_parser

ASSISTANT = "<assistant>"


@reasoning_parser("poolside_v1")
class PoolsideV1ReasoningParser(_Switch):
    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        super().__init__(tokenizer, ctx)
        assistant_id = self.vocab_id(ASSISTANT)
        if assistant_id is None:
            raise ValueError(f"Tokenizer must contain {ASSISTANT!r} token")
        self.assistant_id = assistant_id

    def is_reasoning_end(self, token_ids: Sequence[int]) -> bool:
        inner = self.inner
        if not isinstance(inner, ThinkTokensParser):
            return True
        for tid in reversed(token_ids):
            if tid == inner.start_id:
                return False
            if tid == inner.end_id:
                return True
            if tid == self.assistant_id:
                return False
        return False
