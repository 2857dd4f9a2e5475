"""hunyuan_a13b: `<think>\\n...\\n</think>\\n<answer>\\n...\\n</answer>` tracked while streaming.

vLLM's parser matches fixed token-id sequences of the Hunyuan tokenizer. Where the tokenizer
spells the markers with those ids (or there is none) that is done here too; with another
vocabulary vLLM's sequences never match and every streamed token is content, which contradicts
its tests: the same markers are then matched as text (docs/deviations.md). vLLM 0.33.0 insists on one
token per streamed chunk (an assertion: the request fails); vLLM's
tests/reasoning/test_hunyuan_reasoning_parser.py asserts that a multi-token chunk gives what
feeding its tokens one at a time gives, which is what happens here (docs/deviations.md).
Served with the reasoning parser alone, vLLM 0.33.0 sends the answer after the reasoning ended
unparsed, `\n</answer>` included; the test's parser drops that end marker (one-shot does too),
and so does the `content_after_reasoning` hook here, before the tool parser too.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Sequence
from typing import Any

from tokenfront.parsers.base import DeltaMessage, JSONState, ParseContext, ReasoningParser
from tokenfront.parsers.engines.marker_drop import drop_marker_flush, drop_marker_step
from tokenfront.parsers.registry import reasoning_parser

THINK_START_IDS = [14023, 771, 397]
THINK_START_FAST_IDS = [14023, 771, 1363]
RESPONSE_START_IDS = [198, 524, 27963, 397, 27, 9399, 397]
RESPONSE_START_FAST_IDS = [524, 27963, 397, 27, 9399, 397]
RESPONSE_END_IDS = [198, 524, 9399, 29]
RESPONSE_END = "\n</answer>"
THINK_START = "<think>\n"
RESPONSE_START = "\n</think>\n<answer>\n"
RESPONSE_START_FAST = RESPONSE_START[1:]

# vLLM's patterns: one-shot takes the first match of `_FULL`, else of `_HALF`
# (`split_reasoning`, tests/parsers/test_hunyuan_reasoning_scan.py)
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
    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        super().__init__(tokenizer, ctx)
        # a parser is built per request: what the tokenizer says is worked out once for it
        self.holds = _text_holds(tokenizer) if tokenizer is not None else None

    def is_reasoning_end(self, token_ids: Sequence[int]) -> bool:
        # vLLM answers from the parser's own streaming state: never ended for a prompt.
        return False

    def extract_content_ids(self, token_ids: Sequence[int]) -> list[int]:
        return []

    def extract_reasoning(self, text: str) -> tuple[str | None, str | None]:
        return split_reasoning(text)

    def initial_state(self, prompt_token_ids: Sequence[int] | None) -> JSONState:
        return {"state": "idle", "i": 0, "side": THINK_START_FAST_IDS, "ids": [], "text": ""}

    def stream(
        self, state: JSONState, delta_text: str, delta_ids: Sequence[int]
    ) -> tuple[DeltaMessage | None, bool]:
        if not delta_ids:
            raise AssertionError("hunyuan_a13b streams at least one token per chunk")
        if self.holds is not None:
            return _stream_text(state, delta_text, self.holds)
        if len(delta_ids) == 1:
            return self._step(state, delta_text, delta_ids[0])
        content: list[str] = []
        reasoning: list[str] = []
        for piece, token in zip(self._pieces(delta_text, delta_ids), delta_ids, strict=True):
            delta, _ = self._step(state, piece, token)
            if delta is not None:
                content.append(delta.content or "")
                reasoning.append(delta.reasoning or "")
        ended = state["state"] == "response"
        if ended and state["ids"]:
            # the chunk went on into an end-marker start, held after the chunk's content (the
            # pipeline's hook then gets that content first, unless there is none)
            state["after"] = any(content)
        if not any(content) and not any(reasoning):
            return None, ended
        return DeltaMessage(
            content="".join(content) or None, reasoning="".join(reasoning) or None
        ), ended

    def fallback_content(self, state: JSONState) -> str | None:
        """A held `<think>` start that never completed is content (text matching only)."""
        if state["state"] == "idle":
            return state.pop("start_held", "") or None
        return None

    def content_after_reasoning(self, state: JSONState, text: str) -> str | None:
        """Pipeline hook: the answer without its `\\n</answer>` end marker (also what a tool
        parser gets, through `text_for_tool_parser`)."""
        if state["ids"]:  # what the id machine held at the end of the transition chunk
            text = text + state["text"] if state.get("after") else state["text"] + text
            state["ids"] = []
            state["text"] = ""
        return drop_marker_step(state, "held", text, RESPONSE_END) or None

    def text_for_tool_parser(self, state: JSONState, text: str) -> str:
        return self.content_after_reasoning(state, text) or ""

    def text_for_tool_parser_flush(self, state: JSONState) -> str:
        return self.content_after_reasoning_flush(state) or ""

    def content_after_reasoning_flush(self, state: JSONState) -> str | None:
        out = ""
        if state["ids"] and state["state"] == "response":
            out = self.content_after_reasoning(state, "") or ""
        return out + drop_marker_flush(state, "held") or None

    def _pieces(self, text: str, ids: Sequence[int]) -> list[str]:
        """`text` split at its tokens (a token inside a split character gets no text)."""
        pieces: list[str] = []
        shown = ""
        for k in range(len(ids)):
            full = self.tokenizer.decode(list(ids[: k + 1]), skip_special_tokens=False)
            if full.endswith("\ufffd") or not text.startswith(full):
                pieces.append("")
                continue
            pieces.append(full[len(shown) :])
            shown = full
        if pieces:
            pieces[-1] += text[len(shown) :]
        return pieces

    def _step(
        self, state: JSONState, delta_text: str, token: int
    ) -> tuple[DeltaMessage | None, bool]:
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


def split_reasoning(text: str) -> tuple[str | None, str | None]:
    """(reasoning, content) of a whole output, by the first match of `_FULL`, else of `_HALF`.

    Each pattern runs once, where its first match can be: searched through the whole text
    (vLLM's `findall`) they backtrack super-linearly when no end marker follows.
    """
    full = _first_full(text)
    if full is not None:
        return full.group(1) or None, full.group(2) or None
    half = _first_half(text)
    if half is not None:
        return half.group(1) or None, half.group(2).removesuffix(RESPONSE_END) or None
    return None, text


def _first_full(text: str) -> re.Match[str] | None:
    # Every match ends with `\n</answer>` and one starts at 0 when there is one (the optional
    # reasoning skipped): only the search from 0 to the last `\n</answer>` runs.
    end = text.rfind(RESPONSE_END)
    return None if end == -1 else _FULL.search(text, 0, end + len(RESPONSE_END))


def _first_half(text: str) -> re.Match[str] | None:
    # Only the first `<think>\n` can start the match: a later one has fewer end markers after it.
    start = text.find(THINK_START)
    return None if start == -1 else _HALF.match(text, start)


Holds = dict[str, tuple[str, ...]]
_HOLDS: weakref.WeakKeyDictionary[Any, Holds | None] = weakref.WeakKeyDictionary()


def _text_holds(tokenizer: Any) -> Holds | None:
    """None when the tokenizer spells the markers with Hunyuan's ids (vLLM's id machine runs);
    else, per state, where a chunk can end inside a marker: between two of its own tokens."""
    try:
        return _HOLDS[tokenizer]
    except (KeyError, TypeError):
        pass
    holds: Holds | None = None
    if not _spells_markers_with_ids(tokenizer):
        holds = {
            "idle": _token_prefixes(tokenizer, THINK_START),
            "think": _token_prefixes(tokenizer, RESPONSE_START)
            + _token_prefixes(tokenizer, RESPONSE_START_FAST),
        }
    try:
        _HOLDS[tokenizer] = holds
    except TypeError:  # not weak-referenceable: worked out again next time
        pass
    return holds


def _spells_markers_with_ids(tokenizer: Any) -> bool:
    encode = getattr(tokenizer, "encode", None)
    if encode is None:
        return True
    try:
        return bool(
            encode(THINK_START, add_special_tokens=False) == THINK_START_IDS
            and encode(RESPONSE_START, add_special_tokens=False) == RESPONSE_START_IDS
        )
    except Exception:  # a tokenizer that cannot encode plain text: keep vLLM's id matching
        return True


def _token_prefixes(tokenizer: Any, marker: str) -> tuple[str, ...]:
    """The proper prefixes of `marker` that end between two of its tokens (every prefix when
    the tokenizer cannot say)."""
    try:
        ids = tokenizer.encode(marker, add_special_tokens=False)
        texts = [tokenizer.decode(ids[:k], skip_special_tokens=False) for k in range(1, len(ids))]
    except Exception:
        return tuple(marker[:n] for n in range(1, len(marker)))
    return tuple(t for t in texts if t and marker.startswith(t))


def _hold_back(state: JSONState, text: str, prefixes: tuple[str, ...]) -> str:
    """`text` without its longest ending among `prefixes`, which is kept in the state."""
    keep = max((len(p) for p in prefixes if text.endswith(p)), default=0)
    state["start_held"] = text[len(text) - keep :] if keep else ""
    return text[: len(text) - keep]


def _stream_text(
    state: JSONState, delta_text: str, holds: Holds
) -> tuple[DeltaMessage | None, bool]:
    """The id machine's idle -> think -> response path, with the markers matched as text.

    A possible marker start (`holds`: where a chunk can end inside a marker) is held back; what
    follows the reasoning in the chunk that ends it is returned as content (the pipeline passes
    it on, as for any parser).
    """
    pending = state.get("start_held", "") + delta_text
    reasoning = content = ""
    if state["state"] == "idle":
        at = pending.find(THINK_START)
        if at < 0:
            out = _hold_back(state, pending, holds["idle"])
            if not (out or delta_text or state["start_held"]):  # vLLM's empty delta
                return DeltaMessage(content=""), False
            return (DeltaMessage(content=out) if out else None), False
        content, pending = pending[:at], pending[at + len(THINK_START) :]
        state["state"] = "think"
    at = pending.find(RESPONSE_START_FAST)
    if at < 0:
        reasoning = _hold_back(state, pending, holds["think"])
        if not (reasoning or content or delta_text or state["start_held"]):
            return DeltaMessage(reasoning=""), False
        if not (reasoning or content):
            return None, False
        return DeltaMessage(content=content or None, reasoning=reasoning or None), False
    cut = at - 1 if at > 0 and pending[at - 1] == "\n" else at
    reasoning, after = pending[:cut], pending[at + len(RESPONSE_START_FAST) :]
    state["state"] = "response"
    state["start_held"] = ""
    content += after
    if not (reasoning or content):
        return None, True
    return DeltaMessage(content=content or None, reasoning=reasoning or None), True
