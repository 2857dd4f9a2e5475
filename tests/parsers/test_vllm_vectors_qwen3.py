"""Regression vectors for the qwen3 deviations from vLLM 0.33.0 (docs/deviations.md).

Each vector comes from a vLLM parser unit test (`vllm-project/vllm`, tests/tool_parsers/test_qwen3_xml_coder_shared.py and test_qwen3coder_tool_parser.py); its pytest id
starts with that test's path. vLLM 0.33.0's served derender contradicts the assertion;
tokenfront follows the test, in one-shot and streaming derender alike.

`MARKUP_IN_TEXT` holds the "tool markup inside text" vectors (a parameter value holding
tool-call markup, fenced code examples in content, an inline `<tool_call>` without a
function; tests/parser/engine/test_qwen3_fenced_examples.py for the fences), together with
the neighbouring vectors that pin what must still be structural (missing `</parameter>`,
calls after or outside a fence).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_run import (
    cases,
    needs_models,
    output_parser,
    pinned_cases,
    problems,
    stream_pieces,
)

from tokenfront.parsers.base import ParseContext

FIXED = {
    "test_anyof_string_null_with_null_literal_returns_none[coder]<None>",
    "test_anyof_string_null_with_null_literal_returns_none[xml]<None>",
    "test_python_none_value_for_nullable_int[coder]",
    "test_python_none_value_for_nullable_int[xml]",
    "test_extract_tool_calls_complex_type_with_single_quote[coder]",
    "test_extract_tool_calls_complex_type_with_single_quote[xml]",
    "test_double_encoded_object_param_nonstreaming[coder]",
    "test_double_encoded_object_param_nonstreaming[xml]",
    "test_double_encoded_object_param_streaming[coder]",
    "test_double_encoded_object_param_streaming[xml]",
    "test_none_tool_calls_filtered",
    "test_none_tool_calls_filtered[coder]",
    "test_none_tool_calls_filtered[xml]",
    "test_jinja_template_phantom_tool_call_is_rejected_nonstreaming[coder]",
    "test_jinja_template_phantom_tool_call_is_rejected_nonstreaming[xml]",
}

_SHARED = (
    "test_content_with_xml_structural_tags_{}",
    "test_content_with_param_like_lines_{}",
    "test_content_with_real_param_name_literal_{}",
    "test_content_with_full_nested_tool_call_{}",
    "test_two_tools_second_with_out_of_schema_nested_literal_{}",
)
MARKUP_IN_TEXT = (
    {
        name.format(mode) + f"[{variant}]"
        for name in _SHARED
        for mode in ("nonstreaming", "streaming")
        for variant in ("coder", "xml")
    }
    | {
        f"{name}[{variant}]"
        for name in (
            "test_inline_empty_tool_call_preserves_content_before_real_call",
            "test_extract_tool_calls_missing_closing_parameter_tag",
            "test_extract_tool_calls_streaming_missing_closing_tag",
        )
        for variant in ("coder", "xml")
    }
    | {
        "test_extract_tool_calls_missing_closing_parameter_tag",
        "test_extract_tool_calls_streaming_missing_closing_tag",
        # tests/parser/engine/test_qwen3_fenced_examples.py
        "test_fenced_example_kept_as_content",
        "test_fenced_example_streaming_kept_as_content[1,7,None]",
        "test_real_tool_call_after_fenced_example",
        "test_xml_without_fence_still_promotes_tool_call",
        "test_code_fence_inside_parameter_value_is_preserved",
        "test_fenced_block_inside_parameter_value_is_preserved[```][1,7,None]",
        "test_fenced_block_inside_parameter_value_is_preserved[~~~][1,7,None]",
        "test_tilde_fence_kept_as_content",
        "test_tilde_fence_streaming_kept_as_content[1,7,None]",
        "test_tilde_run_does_not_close_backtick_fence",
        "test_backtick_run_does_not_close_tilde_fence",
        "test_real_tool_call_after_tilde_fence",
        "test_shorter_inner_run_does_not_close_longer_fence",
        "test_longer_fence_streaming_kept_as_content[1,7,None]",
        "test_longer_run_closes_shorter_fence",
        "test_tilde_fence_lengths",
        "test_three_space_indent_is_a_fence",
        "test_four_space_indent_is_not_a_fence",
        "test_inline_backticks_in_prose_do_not_open_fence",
        "test_inline_triple_backticks_do_not_open_fence",
        "test_closing_fence_with_trailing_text_does_not_close",
        "test_inline_code_streaming_still_promotes_real_call[1,7,None]",
        "test_unterminated_content_fence_stays_content",
        "test_unterminated_fence_streaming[1,7,None]",
    }
)

# tests/parser/engine/test_qwen3_stream_interval.py, test_ufffd_reasoning_transition.py
ENGINE = {
    "test_single_param_valid_json_across_intervals[1,2,3,4,5,8,13,64]",
    "test_multi_param_valid_json_across_intervals[1,2,3,4,5,8,13,64]",
    "test_no_ufffd[qwen3]",
    # tests/tool_parsers/test_qwen36_bugs.py
    "test_coder_array_with_json_bool_nonstreaming",
    "test_xml_array_with_json_bool_nonstreaming",
    "test_coder_two_tool_calls_in_one_streaming_chunk",
    "test_xml_two_tool_calls_in_one_streaming_chunk",
}


@needs_models
@pytest.mark.parametrize(
    ("vec", "mode"),
    [c for p in ("qwen3_coder", "qwen3_xml") for c in cases(p, FIXED | MARKUP_IN_TEXT | ENGINE)],
)
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []


# The qwen3 reasoning parser: a fenced `<tool_call>` example stays reasoning
# (test_qwen3_fenced_examples.py::TestReasoningChannel / TestUnterminatedFence).
FENCED_REASONING = {
    "test_fenced_example_in_reasoning_stays_reasoning",
    "test_tilde_fence_in_reasoning_stays_reasoning",
    "test_reasoning_fence_streaming_preserved[1,7,None]",
    "test_unterminated_reasoning_fence_stays_reasoning",
}


def _fenced_reasoning_vectors() -> list[Any]:
    from vllm_vectors_loader import load_vectors

    return [
        pytest.param(vec, id=vec["source"])
        for vec in load_vectors("qwen3", kind="reasoning")
        if vec["source"].split("::")[-1] in FENCED_REASONING
    ]


def _reasoning_parser(vec: dict[str, Any]) -> tuple[Any, Any]:
    from tokenfront.parsers.base import ParseContext
    from tokenfront.parsers.registry import get_reasoning_parser

    _, tok = output_parser("qwen3_coder")
    request = vec.get("request") or {}
    ctx = ParseContext(chat_template_kwargs=dict(request.get("chat_template_kwargs") or {}))
    return get_reasoning_parser("qwen3")(tok, ctx), tok


def _stream_reasoning(parser: Any, tok: Any, text: str) -> tuple[str | None, str | None]:
    """One tokenizer token per delta, then the end-of-stream flush."""
    ids = tok.encode(text, add_special_tokens=False)
    state = parser.initial_state(None)
    reasoning = content = ""
    shown = ""
    deltas = []
    for i in range(len(ids)):
        full = tok.decode(ids[: i + 1], skip_special_tokens=False)
        piece = "" if full.endswith("\ufffd") else full[len(shown) :]
        if piece:
            shown = full
        deltas.append(parser.stream(state, piece, [ids[i]])[0])
    deltas.append(parser.finish(state))
    for delta in deltas:
        if delta is not None:
            reasoning += delta.reasoning or ""
            content += delta.content or ""
    return reasoning or None, content or None


@needs_models
@pytest.mark.parametrize("vec", _fenced_reasoning_vectors())
def test_vllm_reasoning_vector(vec: dict[str, Any]) -> None:
    from vllm_vectors_loader import check_result

    parser, tok = _reasoning_parser(vec)
    if vec["mode"] == "non_streaming":
        reasoning, content = parser.extract_reasoning(vec["model_output"])
    else:
        reasoning, content = _stream_reasoning(parser, tok, vec["model_output"])
    assert check_result(vec, reasoning=reasoning, content=content) == []


# tests/parser/engine/test_qwen3.py (the qwen3 tool grammar, schema coercion) and
# test_qwen3_reasoning.py (the qwen3 reasoning parser: a quoted `<tool_call>` followed by prose
# stays reasoning, a repeated `</think>` is dropped when streamed; docs/deviations.md): every
# vector, one-shot and streamed through the served pipeline.
ENGINE_TESTS = (
    "tests/parser/engine/test_qwen3.py::",
    "tests/parser/engine/test_qwen3_reasoning.py::",
)


@needs_models
@pytest.mark.parametrize(
    ("vec", "mode"),
    [
        c
        for p in ("qwen3_coder", "qwen3_xml", "qwen3")
        for source in ENGINE_TESTS
        for c in pinned_cases(p, source=source)
    ],
)
def test_engine_test_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []


# tests/reasoning/test_qwen3_tool_call_recovery.py (past vLLM 0.33.0): a call written inside
# `<think>` ends the reasoning, and one-shot the answer after a later `</think>` comes before
# the call in the content, so qwen3_coder keeps it (docs/deviations.md).
RECOVERY = "tests/reasoning/test_qwen3_tool_call_recovery.py::"


@needs_models
@pytest.mark.parametrize(
    ("vec", "mode"),
    [c for p in ("qwen3", "qwen3_coder") for c in pinned_cases(p, source=RECOVERY)],
)
def test_tool_call_recovery_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []


@needs_models
def test_answer_after_think_end_comes_before_the_promoted_call() -> None:
    from vllm_vectors_loader import load_vectors

    vec = next(
        v
        for v in load_vectors("qwen3")
        if v["source"].endswith("test_existing_content_text_is_preserved_after_tool_call_promotion")
    )
    parser, _ = _reasoning_parser(vec)
    _, content = parser.extract_reasoning(vec["model_output"])
    assert content is not None
    assert content.index("Here is the answer.") < content.index("<tool_call>")


def test_a_dropped_repeated_think_end_does_not_hold_back_an_engine_tool_parser() -> None:
    # The repeated `</think>` leaves the tool parser's text and ids alike: with its id left in,
    # the qwen3_xml engine waited for that id's text and sent the rest at the end, `<think>`
    # twice (vLLM 0.33.0 streams it as it comes).
    pipeline, tok = output_parser("qwen3_xml", "qwen3", reasoning="qwen3")
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    ctx = ParseContext(tools=tools, tool_choice=None, enable_auto_tools=True)
    text = "<think>a</think> x<think> y</think> z<think>w"
    pieces = [tok.decode([i]) for i in tok.encode(text, add_special_tokens=False)]
    assert stream_pieces(pipeline, tok, pieces, ctx) == (" x<think> y z<think>w", "a")
