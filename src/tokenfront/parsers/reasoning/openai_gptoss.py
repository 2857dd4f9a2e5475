"""openai_gptoss: only reports the reasoning boundary (gpt-oss output is split by Harmony).

On a model that is not gpt-oss vLLM uses this parser as is: streaming treats reasoning as
already ended, and one-shot splitting raises (vLLM's NotImplementedError).
"""

from __future__ import annotations

from collections.abc import Sequence

from tokenfront.parsers.base import DeltaMessage, JSONState, ReasoningParser
from tokenfront.parsers.registry import reasoning_parser

_MESSAGE = (
    "GptOssReasoningParser only provides boundary detection. Use HarmonyParser for output "
    "parsing."
)


@reasoning_parser("openai_gptoss")
class GptOssReasoningParser(ReasoningParser):
    def is_reasoning_end(self, token_ids: Sequence[int]) -> bool:
        return True

    def extract_content_ids(self, token_ids: Sequence[int]) -> list[int]:
        raise NotImplementedError(_MESSAGE)

    def extract_reasoning(self, text: str) -> tuple[str | None, str | None]:
        raise NotImplementedError(_MESSAGE)

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> tuple[DeltaMessage | None, bool]:
        raise NotImplementedError(_MESSAGE)
