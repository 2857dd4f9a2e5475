"""vLLM's plamo3 parser tests (issue 8) pinned through the served pipeline.

Vectors from `vllm-project/vllm`
tests/tool_parsers/test_plamo3_tool_parser.py,
tests/reasoning/test_plamo3_reasoning_parser.py,
tests/parser/engine/test_plamo3.py
(tests/parsers/vllm_vectors/plamo3.json),
one-shot and streamed one token per delta by `vllm_vectors_run`: tool vectors under the tool
parser (plus the reasoning parser a vector names), reasoning vectors under the reasoning parser
alone. Runs on tests/models/plamo3-markers (PLaMo 3's atomic marker pieces as tokens, like the
tests' tokenizers). `NOT_FOLLOWED` lists the vectors tokenfront does not satisfy, with the reason
(docs/deviations.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_run import needs_models, output_parser, pinned_cases, problems, stream_pieces

from tokenfront.parsers.base import ParseContext

_R0 = "pre-engine test: vLLM 0.33.0's engine parser returns the cut-off request as a call, which tests/parser/engine/test_plamo3.py asserts (test_tool_name_cutoffs_do_not_leak_markers, test_multiple_calls_keep_indices_ids_and_arguments_separate[True], test_complete_arguments_survive_missing_closers)"
_R1 = "pre-engine test: vLLM 0.33.0's plamo3 parses the PLaMo format for a named tool choice (supports_required_and_named False; tests/parser/engine/test_plamo3.py::test_tool_choice_uses_the_plamo_format[named]), so the content stays content (probed)"

# "<test id after the file path>:<mode>" (or without ":<mode>" for every mode) -> reason.
NOT_FOLLOWED: dict[str, str] = {
    "test_extract_tool_calls_rejects_incomplete_request[2]": _R0,
    "test_extract_tool_calls_rejects_incomplete_request[3]": _R0,
    "test_extract_tool_calls_rejects_incomplete_request[4]": _R0,
    "test_extract_tool_calls_rejects_incomplete_request[5]": _R0,
    "test_extract_tool_calls_rejects_incomplete_request[6]": _R0,
    "test_named_tool_streaming_content_survives_reasoning_end[chunks0]": _R1,
    "test_named_tool_streaming_content_survives_reasoning_end[chunks1]": _R1,
    "test_named_tool_streaming_content_survives_reasoning_end[chunks2]": _R1,
    "test_streaming_handles_incomplete_request_boundaries[2]": _R0,
}


@needs_models
@pytest.mark.parametrize(("vec", "mode"), pinned_cases("plamo3", NOT_FOLLOWED))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []


_B, _E, _T = "<|plamo:begin_think:plamo|>", "<|plamo:end_think:plamo|>", "<|plamo:tag|>"


def _joined_stream(chunks: list[str]) -> tuple[str, str]:
    """(reasoning, content) of `chunks` streamed under `--reasoning-parser plamo3` alone."""
    pipeline, tok = output_parser("plamo3", None, "plamo3", False)
    ctx = ParseContext(chat_template_kwargs={}, prompt_token_ids=[])
    content, reasoning = stream_pieces(pipeline, tok, chunks, ctx)
    return reasoning, content


@needs_models
@pytest.mark.parametrize(
    ("chunks", "expected"),
    [
        # the chunk that ends the reasoning holds the content and the turn tag
        ([f"{_B}reasoning", f"{_E}answer{_T}ignored", "later"], ("reasoning", "answer")),
        ([f"{_B}reasoning{_E}answer{_T}ignored"], ("reasoning", "answer")),
        ([f"reasoning{_E} {_T}", "ignored"], ("reasoning", " ")),
        # one piece per delta, or the tag ending the reasoning: text after the tag dropped
        ([_B, "reasoning", _E, "answer", _T, "ignored"], ("reasoning", "answer")),
        (["reasoning", _T, "ignored"], ("reasoning", "")),
        ([f"reasoning{_T}", "ignored", "later"], ("reasoning", "")),
    ],
)
def test_content_before_turn_tag_in_reasoning_end_chunk_is_kept(
    chunks: list[str], expected: tuple[str, str]
) -> None:
    assert _joined_stream(chunks) == expected
