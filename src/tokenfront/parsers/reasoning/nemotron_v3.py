"""nemotron_v3 and granite_thinking_parser: the Qwen3 `<think>` / `<tool_call>` grammar.

Both trim trailing whitespace off the reasoning. When `enable_thinking` is false or
`force_nonempty_content` is true, output without content has its reasoning promoted to content
(one-shot: swapped; streaming: the streamed reasoning is appended as content when the stream
ends inside reasoning). nemotron_v3 streams with `enable_thinking` false hold the reasoning
until real content follows `</think>` and swap it at the end otherwise, as one-shot does (its
tests assert no streamed split for that request; a prompt that closes the reasoning, as the
template writes, skips the parser). Granite 4.2 also drops the newlines its template writes
after `</think>` and only reports the end of reasoning once real content starts; its streaming
test asserts the streamed reasoning is duplicated into content when thinking is off.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from functools import cache
from typing import ClassVar

from tokenfront.parsers.base import DeltaMessage, JSONState
from tokenfront.parsers.engines.reasoning_grammar import (
    Grammar,
    GrammarReasoningParser,
    GrammarSpec,
    always_on,
)
from tokenfront.parsers.reasoning.qwen3 import xml_call_grammar
from tokenfront.parsers.registry import reasoning_parser


@cache
def _nemotron(thinking: bool) -> Grammar:
    return dataclasses.replace(xml_call_grammar(thinking), strip_trailing_reasoning_ws=True)


@cache
def _granite_thinking(thinking: bool) -> Grammar:
    return _nemotron(thinking)


@reasoning_parser("nemotron_v3")
class NemotronV3ReasoningParser(GrammarReasoningParser):
    grammar_cached_on_thinking_switch = True
    spec = GrammarSpec(_nemotron, always_on)
    # streaming with enable_thinking false: hold the reasoning (see the module docstring)
    holds_when_thinking_off: ClassVar[bool] = True

    def _forces_content(self) -> bool:
        kwargs = self.ctx.chat_template_kwargs or {}
        return kwargs.get("enable_thinking") is False or kwargs.get("force_nonempty_content") is True

    def _holds(self) -> bool:
        kwargs = self.ctx.chat_template_kwargs or {}
        return self.holds_when_thinking_off and kwargs.get("enable_thinking") is False

    def render_reasoning_ended(self, prompt_token_ids: Sequence[int]) -> bool:
        # vLLM builds this parser with `enable_thinking` (default on); off, it starts in content.
        # (Parsing keeps the tests' always-on grammar: docs/deviations.md.)
        thinking = (self.ctx.chat_template_kwargs or {}).get("enable_thinking", True)
        if thinking is not None and not thinking:
            return True
        return super().render_reasoning_ended(prompt_token_ids)

    def _promote(self, reasoning: str | None, content: str | None) -> tuple[str | None, str | None]:
        if self._forces_content() and (content is None or not content.strip()):
            return content, reasoning
        return reasoning, content

    def extract_reasoning(self, text: str) -> tuple[str | None, str | None]:
        return self._promote(*super().extract_reasoning(text))

    def initial_state(self, prompt_token_ids: Sequence[int] | None) -> JSONState:
        state = super().initial_state(prompt_token_ids)
        state["sr"] = ""  # every reasoning text streamed so far (for the promotion)
        state["hr"] = ""  # reasoning held while thinking is off
        state["rel"] = False  # the held reasoning was released (real content followed it)
        return state

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> tuple[DeltaMessage | None, bool]:
        delta, ended = super().stream(state, delta_text, delta_ids)
        if state["rel"] or not self._holds():
            return delta, ended
        if delta is not None and delta.reasoning is not None:
            state["hr"] += delta.reasoning
            delta.reasoning = None
        if delta is None or delta.content is None:  # content is sent once it is not blank
            return None, False
        state["rel"] = True
        delta.reasoning = state["hr"] or None
        state["hr"] = ""
        return delta, ended

    def _to_delta(
        self, st: JSONState, events: list[tuple[str, str]], *, finished: bool
    ) -> DeltaMessage | None:
        delta = super()._to_delta(st, events, finished=finished)
        if delta is not None and delta.reasoning is not None:
            st["sr"] += delta.reasoning
        return delta

    def fallback_content(self, state: JSONState) -> str | None:
        if self._holds() and not state["rel"]:
            return self._settle_held(state)
        if not self._forces_content():
            return None
        return state.get("sr") or None

    def _settle_held(self, state: JSONState) -> str | None:
        """The end of a held stream: its one-shot split, content returned, reasoning kept for
        `finish`."""
        flushed = GrammarReasoningParser.finish(self, state)
        reasoning = state["hr"] + state["dr"] + ((flushed.reasoning if flushed else None) or "")
        content = (flushed.content if flushed else None) or ""
        state["hr"] = state["dr"] = ""
        reasoning = reasoning.rstrip()
        if not content.strip():  # no content beyond whitespace: swapped
            reasoning, content = content, reasoning
        state["fin"] = reasoning
        return content or None

    def finish(self, state: JSONState) -> DeltaMessage | None:
        if "fin" in state:
            reasoning = state.pop("fin")
            return DeltaMessage(reasoning=reasoning) if reasoning else None
        return super().finish(state)


@reasoning_parser("granite_thinking_parser")
class GraniteThinkingReasoningParser(NemotronV3ReasoningParser):
    spec = GrammarSpec(_granite_thinking, always_on)
    holds_when_thinking_off = False

    def extract_reasoning(self, text: str) -> tuple[str | None, str | None]:
        reasoning, content = GrammarReasoningParser.extract_reasoning(self, text)
        absent = content is None
        if content is not None:
            content = content.lstrip("\n") or None
        if self._forces_content() and absent:
            return content, reasoning
        return reasoning, content

    def initial_state(self, prompt_token_ids: Sequence[int] | None) -> JSONState:
        state = super().initial_state(prompt_token_ids)
        state["cs"] = False  # content started (first non-newline content seen)
        state["ca"] = False  # any content followed `</think>` (newlines too)
        return state

    def fallback_content(self, state: JSONState) -> str | None:
        if state["ended"] and (state["ca"] or state["dc"] or state["buf"]):
            # content followed `</think>`, if only newlines: one-shot does not swap then
            return None
        return super().fallback_content(state)

    def _to_delta(
        self, st: JSONState, events: list[tuple[str, str]], *, finished: bool
    ) -> DeltaMessage | None:
        delta = super()._to_delta(st, events, finished=finished)
        if delta is None or delta.content is None or st["cs"]:
            return delta
        st["ca"] = True
        stripped = delta.content.lstrip("\n")
        if stripped:
            st["cs"] = True
            delta.content = stripped
            return delta
        delta.content = None
        return delta if delta.reasoning is not None else None

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> tuple[DeltaMessage | None, bool]:
        delta, ended = super().stream(state, delta_text, delta_ids)
        return delta, ended and state["cs"]
