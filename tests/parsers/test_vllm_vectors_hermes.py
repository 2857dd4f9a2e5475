"""Regression vectors for the hermes / granite4 deviations from vLLM 0.33.0 (docs/deviations.md).

Each vector comes from vLLM's `tests/tool_parsers/test_hermes_tool_parser.py`
(`vllm-project/vllm`, run there for the hermes and granite4 parsers); its pytest id starts with
that test's path. `arguments` written as a JSON string: a serialized object is passed through
(decoded once by the client), any other string is serialized as a JSON string; streaming
waits for the string literal to close. vLLM 0.33.0 serializes such strings again (hermes) or
passes every string verbatim (granite4); tokenfront follows the test.
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_run import cases, needs_models, problems

STRING_ARGUMENTS = {
    "test_hermes_parser_non_streaming_serialized_arguments[llama]",
    "test_hermes_parser_non_streaming_serialized_arguments[granite4]",
    "test_hermes_parser_non_streaming_bare_string_arguments[llama]",
    "test_hermes_parser_non_streaming_bare_string_arguments[granite4]",
    "test_hermes_streaming_serialized_arguments_with_stream_interval[1,2,3,5]",
    "test_hermes_streaming_bare_string_arguments_with_stream_interval[1,3]",
    'test_hermes_streaming_string_arguments_match_non_streaming[{"param": "max_connections"}]',
    "test_hermes_streaming_string_arguments_match_non_streaming[hello]",
    "test_hermes_streaming_string_arguments_match_non_streaming[{hello world}]",
    "test_hermes_streaming_string_arguments_match_non_streaming[[oops]",
    'test_hermes_streaming_string_arguments_match_non_streaming[{"a": 1} tail text]',
}


@needs_models
@pytest.mark.parametrize(
    ("vec", "mode"), [c for p in ("hermes", "granite4") for c in cases(p, STRING_ARGUMENTS)]
)
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []
