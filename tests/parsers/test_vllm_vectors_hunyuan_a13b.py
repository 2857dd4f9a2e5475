"""Regression vectors for hunyuan_a13b (issue 8: where vLLM 0.33.0 contradicts its own parser
tests, follow the tests; docs/deviations.md).

Each vector comes from a vLLM parser unit test (`vllm-project/vllm`, tests/tool_parsers/test_hunyuan_a13b_tool_parser.py); its pytest id
starts with that test's path. Every vector listed passes one-shot and streamed, one token per
delta, in several larger token chunkings, the whole output in one delta, and along the test's
own deltas (`vllm_vectors_chunked`).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_chunked import cases, problems
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import needs_models

FIXED = {
    "test_hunyuan_a13b_tool_parser_extract[0]",
    "test_hunyuan_a13b_tool_parser_extract[1]",
    "test_hunyuan_a13b_tool_parser_extract[2]",
    "test_hunyuan_a13b_tool_parser_extract[3]",
    "test_hunyuan_a13b_tool_parser_extract[4]",
    "test_hunyuan_a13b_tool_parser_extract[5]",
    "test_hunyuan_a13b_tool_parser_non_ascii",
    "test_hunyuan_a13b_tool_parser_streaming[0]",
    "test_hunyuan_a13b_tool_parser_streaming[1]",
    "test_hunyuan_a13b_tool_parser_streaming[2]",
    "test_hunyuan_a13b_tool_parser_streaming[3]",
    "test_hunyuan_a13b_tool_parser_streaming_one_empty_args_tool[0]",
    "test_hunyuan_a13b_tool_parser_streaming_one_empty_args_tool[1]",
}


@needs_models
@pytest.mark.parametrize(("vec", "mode", "chunk"), cases("hunyuan_a13b", FIXED))
def test_vllm_vector(vec: dict[str, Any], mode: str, chunk: int | str | None) -> None:
    assert problems(vec, mode, chunk) == []


# Under the reasoning parser alone the answer's `\n</answer>` is dropped from streamed content
# too, in any chunking (vLLM 0.33.0 streams it), and on a vocabulary other than Hunyuan's the
# markers are matched as text (vLLM's id sequences never match there: everything is content).
# These run on synthetic-multi, the shared `syn-hunyuan` model (docs/deviations.md).
REASONING_FIXED = {
    "test_reasoning[simple_reasoning]",
    "test_reasoning[no_reasoning_quick]",
    "test_reasoning[simple_reasoning_streaming]",
    "test_reasoning[complete_reasoning_streaming]",
    "test_reasoning[no_reasoning_streaming]",
    "test_reasoning[no_reasoning_quick_stream]",
    "test_reasoning[multiple_lines_streaming]",
    "test_reasoning[reasoning_with_think_streaming]",
    "test_reasoning[complete_reasoning_with_think_streaming]",
    "test_reasoning[multiple_lines_with_think_streaming]",
    "test_streaming_multi_token_delta_matches_single_token_feed[2,3,7,100]",
}


@needs_models
@pytest.mark.parametrize(
    ("vec", "mode", "chunk"), cases("hunyuan_a13b", REASONING_FIXED, kind="reasoning")
)
def test_vllm_reasoning_vector(vec: dict[str, Any], mode: str, chunk: int | str | None) -> None:
    assert problems(vec, mode, chunk) == []


def _chunked_reasoning(text: str, size: int) -> tuple[str | None, str | None]:
    """The hunyuan_a13b reasoning parser fed `size` tokens per delta (Hunyuan's cl100k ids)."""
    from test_reasoning_vectors import tokenizer

    from tokenfront.parsers.base import ParseContext
    from tokenfront.parsers.registry import get_reasoning_parser

    tok = tokenizer("llama3")
    parser = get_reasoning_parser("hunyuan_a13b")(tok, ParseContext())
    state = parser.initial_state(None)
    ids = tok.encode(text, add_special_tokens=False)
    reasoning = content = ""
    shown = ""
    for start in range(0, len(ids), size):
        full = tok.decode(ids[: start + size], skip_special_tokens=False)
        piece, shown = full[len(shown) :], full
        delta, _ = parser.stream(state, piece, ids[start : start + size])
        if delta is not None:
            reasoning += delta.reasoning or ""
            content += delta.content or ""
    return reasoning or None, content or None


MULTI_TOKEN = [
    pytest.param(vec, size, id=f"{vec['source']}:{size}")
    for vec in load_vectors("hunyuan_a13b", kind="reasoning")
    for size in vec.get("stream_intervals") or ()
]


@needs_models
@pytest.mark.parametrize(("vec", "size"), MULTI_TOKEN)
def test_multi_token_deltas(vec: dict[str, Any], size: int) -> None:
    """vLLM 0.33.0 fails a chunk of several tokens; the test asserts the one-token result."""
    reasoning, content = _chunked_reasoning(vec["model_output"], size)
    assert (reasoning, content) == (vec["expected"]["reasoning"], vec["expected"]["content"])


# tests/reasoning/test_hunyuan_a13b_reasoning_parser.py (vllm-project/vllm, 3de32656135a): the
# parser matches raw token ids, so the test feeds ids whose text is `<ID>`.
THINK_START_IDS = [14023, 771, 397]
RESPONSE_START_IDS = [198, 524, 27963, 397, 27, 9399, 397]
ORDINARY_TOKEN = 5000


def _feed_ids(token_ids: list[int]) -> tuple[Any, list[Any]]:
    from tokenfront.parsers.base import ParseContext
    from tokenfront.parsers.registry import get_reasoning_parser

    parser = get_reasoning_parser("hunyuan_a13b")(None, ParseContext())
    state = parser.initial_state(None)
    deltas = [parser.stream(state, f"<{tid}>", [tid])[0] for tid in token_ids]
    return state, [d for d in deltas if d is not None]


def test_streaming_reaches_the_response_state() -> None:
    state, _ = _feed_ids(THINK_START_IDS + [ORDINARY_TOKEN] + RESPONSE_START_IDS)
    assert state["state"] == "response"


@pytest.mark.parametrize("matched", range(1, len(RESPONSE_START_IDS)))
def test_partial_response_start_falls_back_to_reasoning(matched: int) -> None:
    prefix = RESPONSE_START_IDS[:matched] + [ORDINARY_TOKEN]
    state, deltas = _feed_ids(THINK_START_IDS + [ORDINARY_TOKEN] + prefix)
    assert state["state"] == "think"
    assert deltas[-1].content is None
    assert deltas[-1].reasoning == "".join(f"<{tid}>" for tid in prefix)


# One-shot test outputs streamed (the issue-8 corpus replays them through the served stream
# too): the joined stream gives the one-shot answer in every chunking. vLLM 0.33.0 sends a
# `<tool_calls>` that precedes its `[` as content, streams prose followed by a call list as
# content (no call) and turns a `"name"` key inside the arguments into a call of its own.
ONE_SHOT_STREAMED = [f"test_hunyuan_a13b_tool_parser_extract[{i}]" for i in range(6)] + [
    "test_hunyuan_a13b_tool_parser_non_ascii"
]


@needs_models
@pytest.mark.parametrize(
    ("vec", "chunking"),
    [
        pytest.param(vec, chunking, id=f"{vec['source']}:{chunking}")
        for vec in load_vectors("hunyuan_a13b", kind="tool", mode="non_streaming")
        if vec["source"].split("::", 1)[1] in ONE_SHOT_STREAMED
        for chunking in ("1", "mix14", "mix15", "all")
    ],
)
def test_one_shot_output_streamed(vec: dict[str, Any], chunking: str) -> None:
    from vllm_vectors_run import problems as run_problems

    streamed = dict(vec, asserted=[a for a in vec["asserted"] if a != "tools_called"])
    assert run_problems(streamed, "streaming", chunking) == []
