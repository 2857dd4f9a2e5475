"""hy_v3: Hunyuan `<think>` reasoning, switched by `reasoning_effort` (chat_template_kwargs).

`reasoning_effort` "no_think" (the default) leaves all output as content; any other effort
splits like deepseek_r1 (the start marker optional). The markers carry the tokenizer's
`token_suffix` (init kwarg), e.g. `<think_x>`.
"""

from __future__ import annotations

from typing import Any

from tokenfront.parsers.base import ParseContext, ReasoningParser
from tokenfront.parsers.engines.reasoning_tokens import IdentityParser, ThinkTokensParser
from tokenfront.parsers.reasoning.deepseek import _Switch
from tokenfront.parsers.registry import reasoning_parser


def token_suffix(tokenizer: Any) -> str:
    init_kwargs = getattr(tokenizer, "init_kwargs", None) or {}
    return init_kwargs.get("token_suffix") or ""


class _HyThink(ThinkTokensParser):
    start_optional = True

    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        suffix = token_suffix(tokenizer)
        self.start_token = f"<think{suffix}>"  # type: ignore[misc]
        self.end_token = f"</think{suffix}>"  # type: ignore[misc]
        super().__init__(tokenizer, ctx)


@reasoning_parser("hy_v3")
class HYV3ReasoningParser(_Switch):
    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        ReasoningParser.__init__(self, tokenizer, ctx)
        effort = (ctx.chat_template_kwargs or {}).get("reasoning_effort") or "no_think"
        think = _HyThink(tokenizer, ctx)  # validates the markers whatever the effort
        self.inner = IdentityParser(tokenizer, ctx) if effort == "no_think" else think
