"""Regression vectors for the functiongemma tool parser (issue 8).

Each vector comes from a vLLM parser unit test (`vllm-project/vllm`, tests/tool_parsers/test_functiongemma_tool_parser.py);
its pytest id starts with that test's path. Streamed arguments hold their closing brace until the end marker, so several keys join into
valid JSON (a deviation from vLLM 0.33.0, docs/deviations.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import cases, needs_models, problems

ALL = {vec["source"].split("::")[-1] for vec in load_vectors("functiongemma", kind="tool")}


@needs_models
@pytest.mark.parametrize(("vec", "mode"), cases("functiongemma", ALL))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []


def _stream_in_one_chunk(text: str) -> tuple[str, list[tuple[str | None, str]]]:
    from vllm_vectors_run import MODEL_FOR, output_parser

    from tokenfront.parsers.base import ParseContext

    parser, tok = output_parser("functiongemma", MODEL_FOR["functiongemma"])
    tools = [{"type": "function", "function": {"name": n, "parameters": {}}} for n in ("f", "g")]
    ctx = ParseContext(tools=tools, tool_choice="auto", enable_auto_tools=True, prompt_token_ids=[])
    ids = tok.encode(text, add_special_tokens=False)
    delta, _ = parser.stream(None, text, ids, ctx, finished=True)
    assert delta is not None
    calls: dict[int, list[Any]] = {}
    for tc in delta.tool_calls:
        slot = calls.setdefault(tc.index, [None, ""])
        slot[0] = tc.name or slot[0]
        slot[1] += tc.arguments or ""
    return delta.content or "", [tuple(calls[k]) for k in sorted(calls)]  # type: ignore[misc]


@needs_models
def test_several_calls_and_text_in_one_chunk_are_all_streamed() -> None:
    text = (
        "Sure.<start_function_call>call:f{a:<escape>1<escape>}<end_function_call>"
        "<start_function_call>call:g{b:<escape>x<escape>}<end_function_call>"
    )
    content, calls = _stream_in_one_chunk(text)
    assert content == "Sure."
    assert calls == [("f", '{"a": 1}'), ("g", '{"b": "x"}')]


@needs_models
def test_cut_off_call_in_one_chunk_still_sends_its_arguments() -> None:
    _, calls = _stream_in_one_chunk("<start_function_call>call:f{a:<escape>1<escape>")
    assert calls == [("f", '{"a": 1}')]
