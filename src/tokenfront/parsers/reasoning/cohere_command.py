"""cohere_command3 / cohere_command4 (reasoning half): `<|START_THINKING|>` ... `<|END_THINKING|>`.

The output itself is read by the family's whole-output filter (`tools/cohere_command.py`);
this class answers whether a prompt already closed the reasoning: walking back from its end,
`<|START_THINKING|>` decides (closed if an `<|END_THINKING|>` came after it) and
`<|CHATBOT_TOKEN|>` (the assistant turn's start) means not closed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from tokenfront.parsers.base import ReasoningParser
from tokenfront.parsers.engines.filter_parser import ModeFilterOutput
from tokenfront.parsers.registry import reasoning_parser
from tokenfront.parsers.tools.cohere_command import COMMAND3, COMMAND4

START, END, CHATBOT = "<|START_THINKING|>", "<|END_THINKING|>", "<|CHATBOT_TOKEN|>"


class CohereCommandReasoningParser(ReasoningParser):
    whole_output: ClassVar[type[ModeFilterOutput]]
    engine_based = True

    def is_reasoning_end(self, token_ids: Sequence[int]) -> bool:
        start, end, chatbot = self.vocab_id(START), self.vocab_id(END), self.vocab_id(CHATBOT)
        ended = False
        for tid in reversed(token_ids):
            if tid == start:
                return ended
            if tid == chatbot:
                return False
            if tid == end:
                ended = True
        return ended

    def extract_reasoning(self, text: str) -> tuple[str | None, str | None]:
        reasoning, content, _ = self.whole_output(self.tokenizer, self.ctx).parse(text)
        return reasoning, content


@reasoning_parser("cohere_command3")
class CohereCommand3ReasoningParser(CohereCommandReasoningParser):
    whole_output = COMMAND3


@reasoning_parser("cohere_command4")
class CohereCommand4ReasoningParser(CohereCommandReasoningParser):
    whole_output = COMMAND4
