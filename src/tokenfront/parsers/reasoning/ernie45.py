"""ernie45: `<think>` split plus an optional `<response>...</response>` wrapper on content."""

from __future__ import annotations

from collections.abc import Sequence

from tokenfront.parsers.base import DeltaMessage, JSONState
from tokenfront.parsers.engines.reasoning_tokens import ThinkTokensParser
from tokenfront.parsers.registry import reasoning_parser

RESPONSE_START = "<response>"
RESPONSE_END = "</response>"


@reasoning_parser("ernie45")
class Ernie45ReasoningParser(ThinkTokensParser):
    def extract_reasoning(self, text: str) -> tuple[str | None, str | None]:
        reasoning, content = super().extract_reasoning(text)
        if content:
            s = content.find(RESPONSE_START)
            e = content.rfind(RESPONSE_END)
            if s != -1 and e != -1 and s < e:
                content = content[s + len(RESPONSE_START) : e]
        return reasoning, content or None

    def _delta(self, state: JSONState, text: str, ids: Sequence[int]) -> DeltaMessage | None:
        rs_id = self.vocab_id(RESPONSE_START)
        re_id = self.vocab_id(RESPONSE_END)
        nl_id = self.vocab_id("<0x0A>")
        if len(ids) == 1 and ids[0] in (self.start_id, self.end_id, rs_id, re_id):
            return None
        if self.end_id in ids:
            at = text.find(self.end_token)
            content = text[at + len(self.end_token) :].lstrip("\n")
            s = content.find(RESPONSE_START)
            e = content.rfind(RESPONSE_END)
            if s != -1:
                content = content[s + len(RESPONSE_START) :]
            if e != -1:
                content = content[:e]
            return DeltaMessage(reasoning=text[:at], content=content or None)
        if state["end"]:
            content = text
            if rs_id in ids:
                content = content.lstrip("\n")
                s = content.find(RESPONSE_START)
                content = content[s + len(RESPONSE_START) :]
                e = content.rfind(RESPONSE_END)
                if e != -1:
                    content = content[:e]
            elif re_id in ids:
                e = content.rfind(RESPONSE_END)
                if e != -1:
                    content = content[:e]
            prev = state["prev"]
            starts_nl = len(ids) > 0 and ids[0] == nl_id
            if prev and prev[-1] in (self.end_id, re_id) and starts_nl:
                content = content.lstrip("\n")
            if len(prev) > 1 and prev[-2] == self.end_id and starts_nl:
                content = content.lstrip("\n")
            return DeltaMessage(content=content or None)
        return DeltaMessage(reasoning=text)
