"""hy_v3 / hy_v4: Hunyuan `<think>` reasoning, switched by `reasoning_effort` (chat_template_kwargs).

`reasoning_effort` "no_think" (the default) leaves all output as content; any other effort
splits like deepseek_r1 (the start marker optional). The markers carry the tokenizer's
`token_suffix` (init kwarg), e.g. `<think_x>`.
"""

from __future__ import annotations

import re
from typing import Any

from tokenfront.parsers.base import ParseContext, ReasoningParser
from tokenfront.parsers.engines.reasoning_tokens import IdentityParser, ThinkTokensParser
from tokenfront.parsers.reasoning.deepseek import _Switch
from tokenfront.parsers.registry import reasoning_parser
from tokenfront.tokenization.vocab import vocab_of


def token_suffix(tokenizer: Any) -> str:
    init_kwargs = getattr(tokenizer, "init_kwargs", None) or {}
    return init_kwargs.get("token_suffix") or ""


class _HyThink(ThinkTokensParser):
    start_optional = True
    label = "HYV3ReasoningParser"

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


def detect_suffix(tokenizer: Any) -> str:
    """HY V4: the suffix of the first structural token in the vocabulary (e.g. `:6124c78e`)."""
    init_kwargs = getattr(tokenizer, "init_kwargs", None) or {}
    if (init_kwargs.get("model_specific_special_tokens") or {}).get("think_begin_token", ""):
        raise RuntimeError(
            "This checkpoint declares HYV4 structural tokens in tokenizer_config.json "
            "(model_specific_special_tokens), which transformers 5 no longer supports."
        )
    for token in vocab_of(tokenizer):
        match = _STRUCTURAL.fullmatch(token)
        if match:
            return match.group(1) or ""
    return ""


_STRUCTURAL = re.compile(r"<(?:think|tool_calls|tool_call|arg_key|arg_value)(:[^\s>]+)?>")


class _HyV4Think(ThinkTokensParser):
    start_optional = True

    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        suffix = detect_suffix(tokenizer)
        self.start_token = f"<think{suffix}>"  # type: ignore[misc]
        self.end_token = f"</think{suffix}>"  # type: ignore[misc]
        try:
            super().__init__(tokenizer, ctx)
        except ValueError:
            raise RuntimeError(
                "HYV4 reasoning extractor could not locate think start/end tokens in the tokenizer!"
            ) from None


@reasoning_parser("hy_v4")
class HYV4ReasoningParser(_Switch):
    """hy_v4: like hy_v3 but thinking by default (`reasoning_effort` "high"); "no_think" is off."""

    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        ReasoningParser.__init__(self, tokenizer, ctx)
        effort = (ctx.chat_template_kwargs or {}).get("reasoning_effort") or "high"
        if effort == "no_think":
            self.inner = IdentityParser(tokenizer, ctx)
        else:
            self.inner = _HyV4Think(tokenizer, ctx)
