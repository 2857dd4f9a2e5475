"""Streamed chunks holding a token id past 32 bits, and the text an engine parser keeps without
tool parsing. vLLM 0.33.0's engine parsers decode a chunk's ids one by one unless their
plain-text fast path takes it; such an id then fails the chunk (the endpoint's 400 "invalid
stream_state"), while the detokenizer alone reads it as no text. Answers recorded from vLLM in
tests/golden/vllm-wideids.jsonl (scripts/record_wide_id_streams.py)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hf_tokenizers import hf_tokenizer

from tokenfront.parsers.base import DeltaMessage, ParseContext, StreamParseError
from tokenfront.parsers.pipeline import ChatOutputParser

MODELS = Path(__file__).resolve().parents[3] / "shared" / "models"
if not MODELS.is_dir():
    MODELS = Path(os.environ["TOKENFRONT_TEST_MODELS"])

WIDE = 5_000_000_000
HELLO, LT = 9707, 27  # "Hello", "<"
THINK, THINK_END, IM_END = 151667, 151668, 151645
SECTION, TOOL_CALLS = 151669, 151696  # kimi_k2's <|tool_calls_section_begin|>, jamba's <tool_calls>
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]


def tokenizer(model: str) -> Any:
    return hf_tokenizer(MODELS / model)


def stream(
    model: str, tool: str | None, reasoning: str | None, chunks: list[list[int]], **ctx: Any
) -> list[DeltaMessage | None]:
    """The chunks through a fresh pipeline, each chunk's text decoded as the detokenizer reads
    it (an id outside 0..2**32-1 adds none); the last chunk finishes the output when `finish`."""
    tok = tokenizer(model)
    parser = ChatOutputParser(tok, tool, reasoning, enable_auto_tools=True)
    finish = ctx.pop("finish", False)
    context = ParseContext(prompt_token_ids=[87], tool_choice="auto", **ctx)
    state = None
    out = []
    for i, ids in enumerate(chunks):
        text = tok.decode([t for t in ids if 0 <= t < 2**32], skip_special_tokens=False)
        delta, state = parser.stream(
            state, text, ids, context, finished=finish and i == len(chunks) - 1
        )
        out.append(delta)
    return out


def content(deltas: list[DeltaMessage | None]) -> list[str | None]:
    return [d.content if d is not None else None for d in deltas]


@pytest.mark.parametrize(
    "chunks",
    [[[LT, WIDE]], [[THINK, WIDE]], [[HELLO], [THINK_END, WIDE]], [[LT], [HELLO, WIDE]], [[LT, -5]]],
    ids=["lt", "marker", "end_marker", "held_lt", "negative"],
)
def test_a_wide_id_the_reasoning_engine_decodes_fails_the_chunk(chunks: list[list[int]]) -> None:
    with pytest.raises(StreamParseError):
        stream("qwen3", "hermes", "qwen3", chunks)


@pytest.mark.parametrize(
    "chunks",
    [[[HELLO, WIDE]], [[LT], [WIDE]], [[THINK], [THINK_END], [LT, WIDE]], [[LT, 4_000_000_000]]],
    ids=["plain_text", "no_text", "after_the_reasoning_beside_hermes", "past_vocab_in_32_bits"],
)
def test_a_wide_id_the_fast_path_takes_is_no_text(chunks: list[list[int]]) -> None:
    stream("qwen3", "hermes", "qwen3", chunks)


def test_a_wide_id_fails_no_chunk_with_thinking_off() -> None:
    stream("qwen3", "hermes", "qwen3", [[LT, WIDE]], chat_template_kwargs={"enable_thinking": False})


@pytest.mark.parametrize("tools", [TOOLS, None], ids=["tools", "no_tools"])
def test_the_kimi_tool_engine_decodes_after_the_reasoning(tools: Any) -> None:
    with pytest.raises(StreamParseError):
        stream("synthetic-multi", "kimi_k2", "kimi_k2", [[THINK_END], [LT, WIDE]], tools=tools)


def test_kept_text_waits_for_a_marker_prefix_and_drops_stray_specials() -> None:
    deltas = stream("synthetic-multi", "kimi_k2", None, [[LT], [HELLO], [IM_END], [LT]], finish=True)
    assert content(deltas) == [None, "<Hello", None, "<"]


def test_kept_text_holds_a_wide_id_after_a_held_prefix_like_the_engine() -> None:
    with pytest.raises(StreamParseError):
        stream("synthetic-multi", "kimi_k2", None, [[LT], [HELLO, WIDE]])
    stream("synthetic-multi", "kimi_k2", None, [[LT], [WIDE]])  # no text: nothing decoded


def test_one_shot_kept_text_drops_stray_specials() -> None:
    tok = tokenizer("synthetic-multi")
    parser = ChatOutputParser(tok, "kimi_k2", None, enable_auto_tools=True)
    ids = [HELLO, IM_END, HELLO]
    text = tok.decode(ids, skip_special_tokens=False)
    message = parser.parse(text, ids, ParseContext(prompt_token_ids=[87], tool_choice="auto"))
    assert message["content"] == "HelloHello"


def test_jamba_reads_a_wide_id_beside_its_marker_as_no_text() -> None:
    deltas = stream("synthetic-multi", "jamba", None, [[TOOL_CALLS, WIDE]], tools=TOOLS)
    assert content(deltas) == [None]


def test_kept_text_holds_whitespace_only_content_until_other_text() -> None:
    newline, three = 198, 18  # "\n", "3"
    deltas = stream("synthetic-multi", "kimi_k2", "kimi_k2", [[THINK_END, newline], [LT], [three]])
    assert content(deltas) == [None, None, "\n<3"]
    deltas = stream("synthetic-multi", "kimi_k2", "kimi_k2", [[THINK_END, newline]], finish=True)
    assert content(deltas) == ["\n"]
