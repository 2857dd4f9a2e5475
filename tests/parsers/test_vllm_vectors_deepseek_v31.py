"""Regression vectors for the deepseek_v31 deviation from vLLM 0.33.0 (docs/deviations.md).

Each vector comes from vLLM's `tests/tool_parsers/test_deepseekv31_tool_parser.py`
(`vllm-project/vllm`); its pytest id starts with that test's path. vLLM 0.33.0's served
derender contradicts the assertion; tokenfront follows the test, one-shot and streamed.
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_chunked import CHUNKINGS
from vllm_vectors_chunked import problems as chunked_problems
from vllm_vectors_run import cases, needs_models, problems

FIXED = {
    "test_extract_tool_calls_unparsable_block[0]",
    "test_extract_tool_calls_unparsable_block[1]",
}


@needs_models
@pytest.mark.parametrize(("vec", "mode"), cases("deepseek_v31", FIXED))
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []


@needs_models
@pytest.mark.parametrize(("vec", "mode"), cases("deepseek_v31", FIXED))
@pytest.mark.parametrize("chunk", CHUNKINGS)
def test_unparsable_block_streamed(vec: dict[str, Any], mode: str, chunk: int | str | None) -> None:
    """Streamed too, in any chunking: the section is held from its begin marker and, as no call
    begins, sent as content at the end (vLLM 0.33.0 streams it without the markers)."""
    assert chunked_problems(vec, "streaming", chunk) == []


@needs_models
@pytest.mark.parametrize("chunk", CHUNKINGS[:-1])
def test_a_call_after_held_text_streams_as_before(
    chunk: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a call in the section the stream is vLLM 0.33.0's, in every chunking: the text
    between the begin marker and the call reaches the content (markers removed) once the
    call begins."""
    from vllm_vectors_chunked import streamed

    from tokenfront.parsers.tools.deepseek_v31 import DeepSeekV31ToolParser

    text = (
        "Hi<｜tool▁calls▁begin｜> ok <｜tool▁call▁begin｜>foo<｜tool▁sep｜>"
        '{"x": 1}<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
    )
    vec = {"parser": "deepseek_v31", "kind": "tool", "model_output": text, "tools": None}
    vec |= {"request": {}, "expected": {"tool_calls": [{"name": "foo"}]}}
    got = streamed(vec, chunk)
    monkeypatch.setattr(DeepSeekV31ToolParser, "unparsable_block_is_content", False)
    assert got == streamed(vec, chunk)
    if chunk == 1:
        assert got == ("Hi ok ", None, [("foo", '{"x": 1}')])
