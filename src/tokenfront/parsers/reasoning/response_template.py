"""`hf` and `beam`: reasoning read with the checkpoint's `response_template`.

The pipeline runs the whole-output template parser for these names; this class only answers
whether a prompt already ended the reasoning (the template scanner run over the prompt's part of
the assistant message, `enable_thinking` false counting as ended when nothing decides it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from tokenfront.parsers.base import ParseContext, ReasoningParser
from tokenfront.parsers.engines.response_template import (
    MISSING_TEMPLATE,
    ResponseTemplateOutput,
    tokenizer_template,
)
from tokenfront.parsers.registry import reasoning_parser


@reasoning_parser("hf")
class HfReasoningParser(ReasoningParser):
    whole_output: ClassVar[str] = "hf"
    engine_based = True

    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        super().__init__(tokenizer, ctx)
        if tokenizer_template(tokenizer) is None:  # as vLLM's constructor (e.g. under Harmony)
            raise ValueError(MISSING_TEMPLATE)

    def is_reasoning_end(self, token_ids: Sequence[int]) -> bool:
        try:
            output = ResponseTemplateOutput(self.tokenizer, self.ctx, parse_reasoning=True, parse_tools=False)
            thinking_off = not self.ctx.chat_template_kwargs.get("enable_thinking", True)
            return output.prompt_ends_reasoning(token_ids, thinking_off)
        except Exception:
            return False

    def extract_reasoning(self, text: str) -> tuple[str | None, str | None]:
        raise NotImplementedError("the response-template parser reads the whole output")


@reasoning_parser("beam")
class BeamReasoningParser(HfReasoningParser):
    whole_output = "beam"
