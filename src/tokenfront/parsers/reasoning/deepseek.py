"""deepseek_r1 (also step5), deepseek_v3 and holo2."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tokenfront.parsers.base import DeltaMessage, JSONState, ParseContext, ReasoningParser
from tokenfront.parsers.engines.reasoning_tokens import IdentityParser, ThinkTokensParser
from tokenfront.parsers.registry import reasoning_parser


@reasoning_parser("deepseek_r1", "step5")
class DeepSeekR1ReasoningParser(ThinkTokensParser):
    start_optional = True


class _Switch(ReasoningParser):
    """deepseek_v3: R1 splitting when the request turns thinking on, else identity."""

    default_thinking = False
    inner: ReasoningParser

    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        super().__init__(tokenizer, ctx)
        kwargs = ctx.chat_template_kwargs or {}
        thinking, enable = kwargs.get("thinking"), kwargs.get("enable_thinking")
        if self.default_thinking and thinking is None and enable is None:
            thinking = True
        inner: ReasoningParser
        if bool(thinking) or bool(enable):
            inner = DeepSeekR1ReasoningParser(tokenizer, ctx)
        else:
            inner = IdentityParser(tokenizer, ctx)
        self.inner = inner

    def is_reasoning_end(self, token_ids: Sequence[int]) -> bool:
        return self.inner.is_reasoning_end(token_ids)

    def extract_content_ids(self, token_ids: Sequence[int]) -> list[int]:
        return self.inner.extract_content_ids(token_ids)

    def extract_reasoning(self, text: str) -> tuple[str | None, str | None]:
        return self.inner.extract_reasoning(text)

    def initial_state(self, prompt_token_ids: Sequence[int] | None) -> JSONState:
        return self.inner.initial_state(prompt_token_ids)

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> tuple[DeltaMessage | None, bool]:
        return self.inner.stream(state, delta_text, delta_ids)


@reasoning_parser("deepseek_v3")
class DeepSeekV3ReasoningParser(_Switch):
    pass


@reasoning_parser("holo2")
class Holo2ReasoningParser(_Switch):
    default_thinking = True

    @classmethod
    def kwargs_after_build(cls, chat_template_kwargs: dict[str, Any]) -> dict[str, Any]:
        # vLLM's constructor writes its default into a non-empty kwargs dict in place
        kwargs = chat_template_kwargs
        if kwargs and kwargs.get("thinking") is None and kwargs.get("enable_thinking") is None:
            return {**kwargs, "thinking": True, "enable_thinking": True}
        return kwargs
