"""hunyuan_a13b: `<think>\\n...\\n</think>\\n<answer>\\n...\\n</answer>` tracked by id sequences.

vLLM's parser matches fixed token-id sequences of the Hunyuan tokenizer and insists on one
token per streamed chunk; with another tokenizer the sequences are just numbers, which is
reproduced as is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tokenfront.parsers.base import DeltaMessage, JSONState, ReasoningParser
from tokenfront.parsers.registry import reasoning_parser

THINK_START_IDS = [14023, 771, 397]
THINK_START_FAST_IDS = [14023, 771, 1363]
RESPONSE_START_IDS = [198, 524, 27963, 397, 27, 9399, 397]
RESPONSE_START_FAST_IDS = [524, 27963, 397, 27, 9399, 397]
RESPONSE_END_IDS = [198, 524, 9399, 29]

_FULL = re.compile(r"(?:<think>\n(.*?)\n</think>\n<answer>\n)?(.*?)\n</answer>", re.DOTALL)
_HALF = re.compile(r"<think>\n(.*?)\n</think>\n<answer>\n(.*)", re.DOTALL)

# state -> (expected ids, alternative ids)
_EXPECTED: dict[str, tuple[list[int], list[int] | None]] = {
    "idle": (THINK_START_IDS, THINK_START_FAST_IDS),
    "think": (RESPONSE_START_IDS, RESPONSE_START_FAST_IDS),
    "response": (RESPONSE_END_IDS, None),
}
_NEXT = {"idle": "think", "think": "response", "response": "idle"}


@reasoning_parser("hunyuan_a13b")
class HunyuanA13BReasoningParser(ReasoningParser):
    def is_reasoning_end(self, token_ids: Sequence[int]) -> bool:
        # vLLM answers from the parser's own streaming state: never ended for a prompt.
        return False

    def extract_content_ids(self, token_ids: Sequence[int]) -> list[int]:
        return []

    def extract_reasoning(self, text: str) -> tuple[str | None, str | None]:
        found = _FULL.findall(text)
        if found:
            reasoning, content = found[0]
            return reasoning or None, content or None
        found = _HALF.findall(text)
        if found:
            reasoning, content = found[0]
            if content.endswith("\n</answer>"):
                content = content[: -len("\n</answer>")]
            return reasoning or None, content or None
        return None, text

    def initial_state(self, prompt_token_ids: Sequence[int] | None) -> JSONState:
        return {"state": "idle", "i": 0, "side": THINK_START_FAST_IDS, "ids": [], "text": ""}

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> tuple[DeltaMessage | None, bool]:
        if len(delta_ids) != 1:
            raise AssertionError("hunyuan_a13b streams one token per chunk")
        token = delta_ids[0]
        cur = state["state"]
        expected = _EXPECTED[cur][0]
        side = state["side"]
        i = state["i"]
        loose = cur in ("idle", "think")

        def at(seq: list[int], k: int) -> int | None:
            return seq[k] if k < len(seq) else None

        if loose:
            matches = token == at(expected, i) or token == at(side, i)
        else:
            matches = token == at(expected, i)
        delta: DeltaMessage | None = None
        if matches:
            state["ids"].append(token)
            state["text"] += delta_text
            i += 1
            state["i"] = i
            if loose and i - 1 < len(side) and token == side[i - 1]:
                done = i == len(side)
            else:
                done = i == len(expected)
            if done:
                nxt = _NEXT[cur]
                state["state"] = nxt
                if nxt != "response":
                    state["side"] = _EXPECTED[nxt][1]
                state["i"] = 0
                state["ids"] = []
                state["text"] = ""
        else:
            buffered = state["text"] + delta_text if state["ids"] else delta_text
            state["i"] = 0
            state["ids"] = []
            state["text"] = ""
            if cur == "think":
                delta = DeltaMessage(reasoning=buffered)
            else:
                delta = DeltaMessage(content=buffered)
        return delta, state["state"] == "response"
