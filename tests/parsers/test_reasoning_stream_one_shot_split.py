"""Reasoning streams that give the one-shot split (issue 8, session 11): nemotron_v3 with
`enable_thinking` false, granite_thinking_parser's newlines-only content, gemma4 alone with
thinking off, a nested `<think>` in deepseek_r1 reasoning. Every chunking gives the same result.
"""

from __future__ import annotations

from typing import Any

import pytest
import vllm_vectors_run as run

from tokenfront.parsers.base import ParseContext

pytestmark = run.needs_models

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]
CALL = (
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
    "</function>\n</tool_call>"
)


def _run(
    reasoning: str,
    model: str,
    text: str,
    kwargs: dict[str, Any],
    chunking: str,
    tool: str | None = None,
) -> tuple[str | None, str | None, list[tuple[str, str]], tuple[Any, Any, Any]]:
    """(reasoning, content, calls) joined from a stream in `chunking`, and the one-shot answer."""
    if tool is None:
        pipeline, tok = run.output_parser(reasoning, model, reasoning, False)
    else:
        pipeline, tok = run.output_parser(tool, model, reasoning)
    ctx = ParseContext(
        tools=TOOLS if tool else None,
        tool_choice="auto",
        chat_template_kwargs=dict(kwargs),
        enable_auto_tools=True,
        prompt_token_ids=[],
    )
    ids = tok.encode(text, add_special_tokens=False)
    ends = run.chunk_ends(len(ids), chunking, seed=text)
    state, r, c, calls, at = None, "", "", {}, 0
    for i, end in enumerate(ends):
        delta, state = pipeline.stream(
            state, tok.decode(ids[at:end]), ids[at:end], ctx, finished=i == len(ends) - 1
        )
        at = end
        if delta is not None:
            r += delta.reasoning or ""
            c += delta.content or ""
            for tc in delta.tool_calls or []:
                call = calls.setdefault(tc.index, ["", ""])
                call[0] += tc.name or ""
                call[1] += tc.arguments or ""
    message = pipeline.parse(text, ids, ctx)
    once = (
        message["reasoning"],
        message["content"],
        [(x["function"]["name"], x["function"]["arguments"]) for x in message["tool_calls"]],
    )
    return r or None, c or None, [tuple(v) for v in calls.values()], once  # type: ignore[misc]


CHUNKINGS = ["1", "mix14", "all"]
OFF = {"enable_thinking": False}


@pytest.mark.parametrize("chunking", CHUNKINGS)
@pytest.mark.parametrize(
    ("text", "reasoning", "content"),
    [
        ("This is plain content", None, "This is plain content"),
        ("Some reasoning.</think>Actual content here.", "Some reasoning.", "Actual content here."),
        ("The answer.</think>   ", "   ", "The answer."),  # blank content: swapped
        ("R</think>C<tool", "R", "C<tool"),
    ],
)
def test_nemotron_thinking_off_stream_is_the_one_shot_split(
    text: str, reasoning: str | None, content: str | None, chunking: str
) -> None:
    r, c, _, once = _run("nemotron_v3", "qwen3", text, OFF, chunking)
    assert (r, c) == (reasoning, content) == once[:2]


@pytest.mark.parametrize("chunking", CHUNKINGS)
@pytest.mark.parametrize("text", [CALL, "Reason.</think>\n\n" + CALL])
def test_nemotron_thinking_off_call_after_held_reasoning(text: str, chunking: str) -> None:
    r, c, calls, once = _run("nemotron_v3", "qwen3", text, OFF, chunking, tool="qwen3_coder")
    assert (r, c, calls) == once
    assert calls == [("get_weather", '{"city": "Paris"}')]


@pytest.mark.parametrize("chunking", CHUNKINGS)
def test_nemotron_thinking_on_still_streams_reasoning_and_force_still_promotes(
    chunking: str,
) -> None:
    assert _run("nemotron_v3", "qwen3", "Still thinking", {}, chunking)[:2] == (
        "Still thinking",
        None,
    )
    # test_nemotron_v3_streaming_promotes_reasoning_to_content: streamed, then promoted
    force = {"force_nonempty_content": True}
    assert _run("nemotron_v3", "qwen3", "<think>4", force, chunking)[:2] == ("4", "4")


@pytest.mark.parametrize("chunking", CHUNKINGS)
@pytest.mark.parametrize("kwargs", [{"force_nonempty_content": True}, OFF])
def test_granite_newlines_after_end_are_present_content_no_promotion(
    kwargs: dict[str, Any], chunking: str
) -> None:
    r, c, _, once = _run("granite_thinking_parser", "qwen3", "<think>R</think>\n\n", kwargs, chunking)
    assert (r, c) == ("R", None) == once[:2]


@pytest.mark.parametrize("chunking", CHUNKINGS)
def test_granite_absent_content_and_thinking_off_still_promote(chunking: str) -> None:
    force = {"force_nonempty_content": True}
    parser = "granite_thinking_parser"
    assert _run(parser, "qwen3", "<think>R</think>", force, chunking)[:2] == ("R", "R")
    # test_granite_thinking_streaming_enable_thinking_false: streamed and duplicated
    assert _run(parser, "qwen3", "Plain", OFF, chunking)[:2] == ("Plain", "Plain")



@pytest.mark.parametrize("chunking", CHUNKINGS)
@pytest.mark.parametrize(
    "text",
    [
        "<|channel>thought\nTwo plus two.<channel|>The answer is 4.",
        "<|channel>thought\nStill thinking",
        "Plain answer, no channel.",
    ],
)
def test_gemma4_alone_thinking_off_reads_the_channel_as_one_shot(text: str, chunking: str) -> None:
    model = run.MODEL_FOR["gemma4"]
    r, c, _, once = _run("gemma4", model, text, {}, chunking)
    assert (r, c) == once[:2]


@pytest.mark.parametrize("chunking", CHUNKINGS)
@pytest.mark.parametrize(
    ("text", "reasoning", "content"),
    [
        ("<think>Outer<think>Inner</think>Content", "Outer<think>Inner", "Content"),
        ("\n<think>R</think>C", "\nR", "C"),  # the first start marker is dropped
    ],
)
def test_deepseek_r1_nested_start_marker_is_reasoning_text(
    text: str, reasoning: str, content: str, chunking: str
) -> None:
    r, c, _, _ = _run("deepseek_r1", "qwen3", text, {}, chunking)
    assert (r, c) == (reasoning, content)
