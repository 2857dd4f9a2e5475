"""One-shot vLLM test vectors replayed as streams (issue 8, sessions 10-11).

The hidden corpus streams each one-shot test's model output through the served derender too
(one token per chunk, random 1-4 token chunks, the whole output at once) and scores the
accumulated stream against the same assertion. `tests/parsers/test_vllm_vectors_one_shot_streamed.py`
does that for every one-shot vector tokenfront satisfies one-shot; `STREAM_OPEN` lists the
streams that still differ (docs/deviations.md, "Streams of one-shot test outputs"), each with why.
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_loader import load_vectors

CHUNKINGS = ("1", "mix14", "all")

# Assertions a stream cannot be scored on (raised errors, `is_reasoning_end` of a token list).
NOT_STREAMABLE = frozenset({"raises", "is_reasoning_end", "is_reasoning_end_only"})

WS = "whitespace next to a call, which one-shot strips, was already streamed"
NAMES = (
    "a call name is streamed before the call turns out invalid; holding names back would change "
    "recorded stream timing, and vLLM's own streaming tests assert the early name"
)
SWAP = (
    "granite thinking off: one-shot swaps the reasoning into the content; "
    "test_granite_thinking_streaming_enable_thinking_false asserts it streamed as reasoning, then as content"
)
FORCE = (
    "force_nonempty_content without content: one-shot swaps, the stream sent the reasoning before the "
    "end showed no content comes (test_*_streaming_promotes_reasoning_to_content assert both)"
)
MISTRAL_PRE = (
    "mistral pre-v11: text after the call list; the streaming test of the same output "
    "(test_extract_tool_calls_streaming_pre_v11_tokenizer[trailing_data_after_json]) asserts it streamed"
)
AFTER = "text after the calls, which one-shot drops, is streamed"
PROSE = "prose before a llama3_json call is streamed as content; one-shot drops it"
HARMONY = (
    "harmony: one-shot joins messages with a newline, the stream sends each message's text as it "
    "comes (TestParseDelta::test_malformed_msgs_recovers_raw_content asserts no newline is streamed)"
)
JAMBA = "jamba's leading ' ' content: the streaming test of the same output asserts it"
MINICPM5 = "minicpm5 text next to calls: vLLM's streaming tests assert it streamed"
EMPTY_ARGS = "a second call without arguments streams '' where one-shot has '{}'"
XLAM_OPENER = "a lone '[' that starts a split xlam [TOOL_CALLS] opener stays in the content"
STEP3P5_PREFIX = (
    "step3p5: text before the output's own <think> is content one-shot, but streamed it is reasoning "
    "before <think> arrives (test_reasoning[new_line_streaming] asserts it streamed as reasoning)"
)
KIMI_ARGS_WS = (
    "kimi_k2 (an older test version comparing exact argument strings): one-shot strips the "
    "whitespace around the arguments JSON, the stream already sent it as the model wrote it"
)

# vector `source` (optionally `@<chunking>` for one chunking only) -> why its stream differs.
STREAM_OPEN: dict[str, str] = {
    "tests/tool_parsers/test_apertus_tool_parser.py::TestExtractToolCalls::test_text_before_tool_call": WS,  # apertus
    "tests/tool_parsers/test_ernie45_moe_tool_parser.py::test_extract_tool_calls[tool_call_with_content_before]@1": WS,  # ernie45
    "tests/tool_parsers/test_functiongemma_tool_parser.py::TestExtractToolCalls::test_text_before_tool_call": WS,  # functiongemma
    "tests/tool_parsers/test_gemma4_tool_parser.py::TestExtractToolCalls::test_text_before_tool_call": WS,  # gemma4
    "tests/tool_parsers/test_glm4_moe_tool_parser.py::test_extract_tool_calls_incomplete_tool_call@1": NAMES,  # glm45
    "tests/tool_parsers/test_glm4_moe_tool_parser.py::test_extract_tool_calls_incomplete_tool_call@mix14": NAMES,  # glm45
    "tests/tool_parsers/test_glm4_moe_tool_parser.py::test_extract_tool_calls_mixed_content": AFTER,  # glm45
    "tests/tool_parsers/test_glm4_moe_tool_parser.py::test_malformed_tool_call_no_regex_match": NAMES,  # glm45
    "tests/parser/engine/test_granite.py::TestNonStreaming::test_surrounding_text_is_content": WS,  # granite
    "tests/reasoning/test_granite_thinking_reasoning_parser.py::test_granite_thinking_disabled_moves_into_content": SWAP,  # granite_thinking_parser
    "tests/reasoning/test_granite_thinking_reasoning_parser.py::test_granite_thinking_disabled_with_leading_newline": SWAP,  # granite_thinking_parser
    "tests/reasoning/test_granite_thinking_reasoning_parser.py::test_granite_thinking_force_nonempty_content_moves_into_content": FORCE,  # granite_thinking_parser
    "tests/reasoning/test_granite_thinking_reasoning_parser.py::test_granite_thinking_force_nonempty_swaps_when_content_absent": FORCE,  # granite_thinking_parser
    "tests/tool_parsers/test_hermes_tool_parser.py::test_hermes_parser_non_streaming_tool_call_invalid_json[llama]@1": NAMES,  # hermes
    "tests/tool_parsers/test_hermes_tool_parser.py::test_hermes_parser_non_streaming_tool_call_invalid_json[llama]@mix14": NAMES,  # hermes
    "tests/parser/test_response_template.py::test_call_without_closer_is_dropped": NAMES,  # hf
    "tests/parser/test_response_template.py::test_gemma4_checkpoint_grammar_excludes_hyphenated_name@1": NAMES,  # hf
    "tests/parser/test_response_template.py::test_gemma4_checkpoint_grammar_excludes_hyphenated_name@mix14": NAMES,  # hf
    "tests/parser/test_response_template.py::test_gemma4_response_template_drops_incomplete_call": NAMES,  # hf
    "tests/parser/test_response_template.py::test_non_streaming_malformed_call_is_dropped@1": NAMES,  # hf
    "tests/parser/test_response_template.py::test_non_streaming_malformed_call_is_dropped@mix14": NAMES,  # hf
    "tests/tool_parsers/test_hy_v4_duplicate_arg_key.py::test_streaming_duplicate_arg_key_matches_non_streaming<non_streaming>@1": NAMES,  # hy_v4
    "tests/tool_parsers/test_hy_v4_duplicate_arg_key.py::test_streaming_duplicate_arg_key_matches_non_streaming<non_streaming>@mix14": NAMES,  # hy_v4
    "tests/tool_parsers/test_hy_v4_tool_parser.py::TestStrictMode::test_strict_returns_raw_content[empty_function_name]": NAMES,  # hy_v4
    "tests/tool_parsers/test_hy_v4_tool_parser.py::TestStrictMode::test_strict_returns_raw_content[end_before_start]": NAMES,  # hy_v4
    "tests/tool_parsers/test_hy_v4_tool_parser.py::TestStrictMode::test_strict_returns_raw_content[missing_tool_calls_end]": NAMES,  # hy_v4
    "tests/tool_parsers/test_hy_v4_tool_parser.py::TestStrictMode::test_strict_returns_raw_content[unbalanced_arg_tags]": NAMES,  # hy_v4
    "tests/tool_parsers/test_hy_v4_tool_parser.py::TestStrictMode::test_strict_returns_raw_content[unbalanced_tool_call]": NAMES,  # hy_v4
    "tests/tool_parsers/test_hy_v4_tool_parser.py::TestStrictMode::test_strict_returns_raw_content[unparsed_argument_payload]": NAMES,  # hy_v4
    "tests/tool_parsers/test_hy_v4_tool_parser.py::TestToolParserWrapper::test_malformed_output_is_returned_as_content": NAMES,  # hy_v4
    "tests/tool_parsers/test_jamba_tool_parser.py::test_extract_tool_calls[parallel_tools]": JAMBA,  # jamba
    "tests/tool_parsers/test_jamba_tool_parser.py::test_extract_tool_calls[single_tool]": JAMBA,  # jamba
    "tests/tool_parsers/test_lfm2_tool_parser.py::test_tool_call[content_after_tool_call_nonstreaming]": WS,  # lfm2
    "tests/tool_parsers/test_llama3_json_tool_parser.py::test_extract_tool_calls_invalid_json@1": NAMES,  # llama3_json
    "tests/tool_parsers/test_llama3_json_tool_parser.py::test_extract_tool_calls_invalid_json@mix14": NAMES,  # llama3_json
    "tests/tool_parsers/test_llama3_json_tool_parser.py::test_extract_tool_calls_multiple_json_with_surrounding_text": PROSE,  # llama3_json
    "tests/tool_parsers/test_llama3_json_tool_parser.py::test_extract_tool_calls_simple": PROSE,  # llama3_json
    "tests/parser/engine/test_llama_json.py::TestNonStreaming::test_name_with_extra_keys_no_args_is_prose@1": NAMES,  # llama4_json
    "tests/parser/engine/test_llama_json.py::TestNonStreaming::test_name_with_extra_keys_no_args_is_prose@mix14": NAMES,  # llama4_json
    "tests/tool_parsers/test_mimov2_flash_tool_parser.py::test_extract_content_before_tool_call": WS,  # mimo
    "tests/tool_parsers/test_minicpm5xml_tool_parser.py::test_multiple_calls_interleaved_text": MINICPM5,  # minicpm5
    "tests/tool_parsers/test_minicpm5xml_tool_parser.py::test_single_call_with_surrounding_text": MINICPM5,  # minicpm5
    "tests/parser/mistral/test_tool_calls.py::test_extract_tool_calls_pre_v11_tokenizer[trailing_data_after_json]": MISTRAL_PRE,  # mistral
    "tests/tool_parsers/test_mistral_tool_parser.py::test_extract_tool_calls_pre_v11_tokenizer[trailing_data_after_json]": MISTRAL_PRE,  # mistral
    "tests/parser/engine/test_nemotron_v3.py::TestNemotronSwap::test_force_nonempty_content_swaps": FORCE,  # nemotron_v3
    "tests/reasoning/test_nemotron_v3_reasoning_parser.py::test_nemotron_v3_force_nonempty_content_moves_into_content": FORCE,  # nemotron_v3
    "tests/parser/test_harmony.py::TestParse::test_commentary_preambles[1]": HARMONY,  # openai
    "tests/parser/test_harmony.py::TestParse::test_malformed_msgs_recovers_raw_content": HARMONY,  # openai
    "tests/entrypoints/openai/parser/test_harmony_utils.py::TestParseChatOutput::test_parse_chat_output_preamble_then_final": HARMONY,  # openai_gptoss
    "tests/parser/engine/test_plamo3.py::test_multiple_calls_keep_indices_ids_and_arguments_separate[True]": EMPTY_ARGS,  # plamo3
    "tests/tool_parsers/test_pythonic_tool_parser.py::test_good_call_survives_unparsable_sibling@1": NAMES,  # pythonic
    "tests/tool_parsers/test_pythonic_tool_parser.py::test_unrecoverable_block_still_reports_no_tool_call@1": NAMES,  # pythonic
    "tests/tool_parsers/test_pythonic_tool_parser.py::test_unrecoverable_block_still_reports_no_tool_call@mix14": NAMES,  # pythonic
    "tests/tool_parsers/test_xlam_tool_parser.py::test_extract_tool_calls[single_tool_with_json_code_block]": WS,  # xlam
    "tests/tool_parsers/test_xlam_tool_parser.py::test_extract_tool_calls[single_tool_with_tool_calls_tag]@1": XLAM_OPENER,  # xlam
    "tests/tool_parsers/test_xlam_tool_parser.py::test_extract_tool_calls[single_tool_with_tool_calls_tag]@mix14": XLAM_OPENER,  # xlam
    "tests/tool_parsers/test_kimi_k2_tool_parser.py::test_extract_tool_calls[tool_call_with_content_before]": KIMI_ARGS_WS,  # kimi_k2
    "tests/tool_parsers/test_kimi_k2_tool_parser.py::test_extract_tool_calls[multi_tool_call_with_content_before]": KIMI_ARGS_WS,  # kimi_k2
    "tests/tool_parsers/test_kimi_k2_tool_parser.py::test_extract_tool_calls[mixed_spacing_tool_calls]": KIMI_ARGS_WS,  # kimi_k2
    "tests/reasoning/test_step3p5_reasoning_parser.py::test_reasoning[new_line]": STEP3P5_PREFIX,  # step3p5
    "tests/reasoning/test_step3p5_reasoning_parser.py::test_step3p5_preserves_prefix_before_think[0]": STEP3P5_PREFIX,  # step3p5
    "tests/reasoning/test_step3p5_reasoning_parser.py::test_step3p5_preserves_prefix_before_think[3]": STEP3P5_PREFIX,  # step3p5
    "tests/reasoning/test_step3p5_reasoning_parser.py::test_step3p5_preserves_prefix_before_think[4]": STEP3P5_PREFIX,  # step3p5
    "tests/reasoning/test_step3p5_reasoning_parser.py::test_step3p5_preserves_prefix_before_think[5]": STEP3P5_PREFIX,  # step3p5
    "tests/reasoning/test_step3p5_reasoning_parser.py::test_step3p5_preserves_prefix_before_think[6]": STEP3P5_PREFIX,  # step3p5
    "tests/reasoning/test_step3p5_reasoning_parser.py::test_step3p5_preserves_prefix_before_think[7]": STEP3P5_PREFIX,  # step3p5
}


def streamed_one_shot_cases() -> list[Any]:
    """(vector as a stream, chunking) for every one-shot vector with a streamable assertion;
    the ones in `STREAM_OPEN` are strict xfails, so a fixed stream must leave the table."""
    out = []
    seen: set[str] = set()
    for vec in load_vectors(group=None):
        if vec["mode"] != "non_streaming" or NOT_STREAMABLE & set(vec["asserted"]):
            continue
        source = vec["source"]
        for chunking in CHUNKINGS:
            reason = STREAM_OPEN.get(source) or STREAM_OPEN.get(f"{source}@{chunking}")
            if reason:
                seen.add(source if source in STREAM_OPEN else f"{source}@{chunking}")
            marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
            test_id = f"{vec['parser']}:{source.split('::', 1)[-1]}:{chunking}"
            out.append(pytest.param(dict(vec, mode="streaming"), chunking, id=test_id, marks=marks))
    stale = set(STREAM_OPEN) - seen
    assert not stale, f"STREAM_OPEN rows match no one-shot vector: {sorted(stale)}"
    return out
