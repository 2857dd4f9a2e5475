"""kimi_k3: the Kimi K3 XTML think channel `<|open|>think<|sep|>...<|close|>think<|sep|>`.

The opener may sit in the prompt (then the output starts in reasoning); output that opens a
`response` channel without think markers has no reasoning. Thinking is on unless `thinking`
(or, without it, `enable_thinking`) is false. After reasoning the `response` wrapper is
stripped from the content unless tools are in play (the kimi_k3 tool parser reads the raw
channels). The end is found on the marker's token ids, newest of open/close wins.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tokenfront.parsers.base import DeltaMessage, JSONState, ParseContext, ReasoningParser
from tokenfront.parsers.registry import reasoning_parser

_O, _C, _S = r"<\|open\|>", r"<\|close\|>", r"<\|sep\|>"
THINK_OPEN, THINK_CLOSE = "<|open|>think<|sep|>", "<|close|>think<|sep|>"
RESPONSE_OPEN, RESPONSE_CLOSE = "<|open|>response<|sep|>", "<|close|>response<|sep|>"
MESSAGE_CLOSE = "<|close|>message<|sep|>"


def _channel(marker: str, name: str) -> re.Pattern[str]:
    return re.compile(marker + r"\s*" + name + r"\s*" + _S)


_THINK_OPEN, _THINK_CLOSE = _channel(_O, "think"), _channel(_C, "think")
_RESPONSE_OPEN, _RESPONSE_CLOSE = _channel(_O, "response"), _channel(_C, "response")
_MESSAGE_CLOSE = _channel(_C, "message")


def _match_at(hay: Sequence[int], i: int, needle: Sequence[int]) -> bool:
    return i + len(needle) <= len(hay) and all(hay[i + k] == needle[k] for k in range(len(needle)))


def _last_index(hay: Sequence[int], needle: Sequence[int]) -> int:
    for i in range(len(hay) - len(needle), -1, -1):
        if needle and _match_at(hay, i, needle):
            return i
    return -1


def _newest(hay: Sequence[int], a: Sequence[int], b: Sequence[int]) -> int:
    """0 when `a` occurs last, 1 when `b` does, -1 for neither."""
    if not a or not b:
        return -1
    for i in range(len(hay) - min(len(a), len(b)), -1, -1):
        if _match_at(hay, i, a):
            return 0
        if _match_at(hay, i, b):
            return 1
    return -1


def _hold(text: str, markers: tuple[str, ...]) -> str:
    overlap = 0
    for marker in markers:
        for n in range(min(len(marker) - 1, len(text)), 0, -1):
            if text.endswith(marker[:n]):
                overlap = max(overlap, n)
                break
    return text[:-overlap] if overlap else text


def strip_wrapper(text: str) -> str:
    m_open = _RESPONSE_OPEN.search(text)
    m_close = _RESPONSE_CLOSE.search(text, m_open.end() if m_open else 0)
    if m_open is not None and m_close is not None:
        text = text[m_open.end() : m_close.start()]
    elif m_open is not None:
        text = text[m_open.end() :]
    else:
        text = _RESPONSE_CLOSE.sub("", _RESPONSE_OPEN.sub("", text))
    return _MESSAGE_CLOSE.sub("", text)


def content_ready(text: str) -> str:
    """Post-reasoning content safe to stream: wrapper markers removed, partial ones held."""
    m_open = _RESPONSE_OPEN.search(text)
    if m_open is not None:
        text = text[m_open.end() :]
    text = _MESSAGE_CLOSE.sub("", _RESPONSE_CLOSE.sub("", text))
    return _hold(text, (RESPONSE_OPEN, RESPONSE_CLOSE, MESSAGE_CLOSE))


def _reasoning_ready(text: str) -> str:
    m_open = _THINK_OPEN.search(text)
    if m_open is not None:
        text = text[m_open.end() :]
    return _hold(text, (THINK_OPEN, THINK_CLOSE))


@reasoning_parser("kimi_k3")
class KimiK3ReasoningParser(ReasoningParser):
    engine_based = True

    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        super().__init__(tokenizer, ctx)
        kwargs = ctx.chat_template_kwargs or {}
        thinking = kwargs.get("thinking", None)
        if thinking is None:
            thinking = kwargs.get("enable_thinking", True)
        self.thinking = bool(thinking)
        self.open_ids = self._encode(THINK_OPEN)
        self.close_ids = self._encode(THINK_CLOSE)

    def _encode(self, text: str) -> list[int]:
        return list(self.tokenizer.encode(text, add_special_tokens=False))

    def is_reasoning_end(self, token_ids: Sequence[int]) -> bool:
        if not self.thinking:
            return True
        return _newest(list(token_ids), self.close_ids, self.open_ids) == 0

    def extract_content_ids(self, token_ids: Sequence[int]) -> list[int]:
        ids = list(token_ids)
        if not self.thinking:
            return ids
        at = _last_index(ids, self.close_ids)
        return [] if at == -1 else ids[at + len(self.close_ids) :]

    def _keeps_channels(self) -> bool:
        return bool(self.ctx.tools) and self.ctx.tool_choice != "none"

    def _after(self, text: str) -> str | None:
        if self._keeps_channels():
            return text or None
        return strip_wrapper(text) or None

    def extract_reasoning(self, text: str) -> tuple[str | None, str | None]:
        if not self.thinking:
            return None, self._after(text)
        m_open = _THINK_OPEN.search(text)
        start = m_open.end() if m_open is not None else 0
        m_close = _THINK_CLOSE.search(text, start)
        if m_open is None and m_close is None and _RESPONSE_OPEN.search(text) is not None:
            return None, self._after(text)
        if m_close is not None:
            return text[start : m_close.start()] or None, self._after(text[m_close.end() :])
        return text[start:] or None, None

    def initial_state(self, prompt_token_ids: Sequence[int] | None) -> JSONState:
        return {"text": "", "tail": []}

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> tuple[DeltaMessage | None, bool]:
        previous = state["text"]
        current = previous + delta_text
        state["text"] = current
        carry = max(len(self.close_ids), len(self.open_ids)) - 1
        window = list(state["tail"]) + list(delta_ids)
        state["tail"] = window[-carry:] if carry else []
        if not self.thinking:
            return DeltaMessage(content=delta_text), True
        ended = bool(delta_ids) and _newest(window, self.close_ids, self.open_ids) == 0
        if _THINK_CLOSE.search(previous):
            return DeltaMessage(content=delta_text), ended
        m_close = _THINK_CLOSE.search(current)
        if m_close is not None:
            m_open = _THINK_OPEN.search(current)
            reasoning = current[m_open.end() if m_open is not None else 0 : m_close.start()]
            sent = _reasoning_ready(previous)
            r_delta = reasoning[len(sent) :] if reasoning.startswith(sent) else reasoning
            content = current[m_close.end() :]
            return DeltaMessage(reasoning=r_delta or None, content=content or None), ended
        now, before = _reasoning_ready(current), _reasoning_ready(previous)
        r_delta = now[len(before) :] if now.startswith(before) else now
        return (DeltaMessage(reasoning=r_delta) if r_delta else None), ended

    def content_after_reasoning(self, state: JSONState, text: str) -> str | None:
        """Pipeline hook (no tool parser): the stripped content this chunk adds."""
        previous = state.get("ct", "")
        current = previous + text
        state["ct"] = current
        now, before = content_ready(current), content_ready(previous)
        delta = now[len(before) :] if now.startswith(before) else now
        return delta or None
