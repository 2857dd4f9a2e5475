"""vLLM's older parser tests under tests/entrypoints/openai/tool_parsers/ (issue 8), group c.

Vectors from `vllm-project/vllm` (tests/parsers/vllm_vectors/<parser>.entrypoints.json):
test_qwen3xml_tool_parser.py (the `StreamingXMLToolCallParser` unit tests, under
`qwen3_xml`) and the `test_streaming_reconstruction` case of the older common suite for
internlm, phi4_mini_json and step3 (test_internlm2_tool_parser.py,
test_phi4mini_tool_parser.py, test_step3_tool_parser.py; their other cases, and those of
test_hunyuan_a13b_tool_parser.py, test_longcat_tool_parser.py and test_olmo3_tool_parser.py,
are already in <parser>.json). Each vector runs one-shot and streamed one token per delta by
`vllm_vectors_run` (a vector with the test's own delta split is fed along it); the
properties `problems` leaves to the served replay (`split_invariant`,
`stream_matches_nonstream`) and the "every call has a name" check of
`test_collect_all_never_returns_null_name` are checked here too. `NOT_FOLLOWED` lists the
vectors tokenfront does not satisfy, with the reason (docs/deviations.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_run import needs_models, one_shot, problems, source_cases, streamed

QWEN3XML = "tests/entrypoints/openai/tool_parsers/test_qwen3xml_tool_parser.py"

_FALLBACK = (
    "a bare <function=...> without <tool_call> opens a call in vLLM 0.33.0, and the newer "
    "tests/tool_parsers/test_qwen3_xml_coder_shared.py::test_extract_tool_calls_fallback_no_tags[xml] "
    "asserts that call"
)
_NULL = (
    "a string parameter written `null` stays the string in vLLM 0.33.0, as the newer "
    "tests/tool_parsers/test_qwen3_xml_coder_shared.py::test_string_null_value_preserved[xml] asserts"
)
_CUT_VALUE = (
    "vLLM 0.33.0 streams an open value without closing the JSON when the output ends; the "
    "recorded golden tf-qwen3_xml-cut_off-stream (tests/golden/vllm-parsers.jsonl) holds it"
)
_NESTED = (
    "without a schema a line-start <parameter=X> inside an open value is a new parameter "
    "(vLLM 0.33.0's recovery for a missing </parameter>, kept for every name without a schema)"
)

# test id after the file path -> reason
NOT_FOLLOWED: dict[str, dict[str, str]] = {
    "qwen3_xml": {
        "test_implicit_tool_call_no_wrapper": _FALLBACK,
        "test_tool_call_pending_stale_tag_rollback": _FALLBACK,
        "test_type_null": _NULL,
        "test_abort_mid_parameter_value": _CUT_VALUE,
        "test_opening_structural_tags_are_literal_inside_value[<parameter=nested>]": _NESTED,
    },
}
SOURCES = {
    "qwen3_xml": QWEN3XML,
    "internlm": "tests/entrypoints/openai/tool_parsers/test_internlm2_tool_parser.py",
    "phi4_mini_json": "tests/entrypoints/openai/tool_parsers/test_phi4mini_tool_parser.py",
    "step3": "tests/entrypoints/openai/tool_parsers/test_step3_tool_parser.py",
}
CASES = source_cases(SOURCES, NOT_FOLLOWED)


def _calls(result: tuple[Any, Any, list[tuple[Any, Any]]]) -> tuple[Any, list[Any]]:
    content, _, calls = result
    return content or None, list(calls)


@needs_models
@pytest.mark.parametrize(("vec", "mode"), CASES)
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
    if mode != "streaming":
        return
    stream = _calls(streamed(vec))
    if "stream_matches_nonstream" in vec["asserted"]:
        assert stream == _calls(one_shot(vec))
    if "split_invariant" in vec["asserted"]:
        for chunking in ("2", "mix14", "all"):
            assert _calls(streamed(vec, chunking)) == stream, chunking
    if "test_collect_all_never_returns_null_name" in vec["source"]:
        assert all(name for name, _ in stream[1])
