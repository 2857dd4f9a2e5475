"""vLLM's gpt-oss Harmony parser tests (issue 8) pinned through the served pipeline.

Vectors from `vllm-project/vllm`
tests/parser/test_harmony.py (TestParse, TestParseDelta, the output-level process_chunk cases),
tests/parser/test_harmony_parser.py (TestParse on outputs rendered for completion) and
tests/entrypoints/openai/parser/test_harmony_utils.py (TestParseChatOutput)
(tests/parsers/vllm_vectors/openai.harmony.json, openai_gptoss.harmony.json), one-shot and
streamed one token per delta by `vllm_vectors_run` on the gpt-oss test model: tool vectors under
`--tool-call-parser openai --reasoning-parser openai_gptoss`, reasoning vectors under the
reasoning parser alone. `NOT_FOLLOWED` lists the vectors tokenfront does not satisfy, with the
reason (docs/deviations.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_run import needs_models, pinned_cases, problems

_EOS_HEADER = (
    "older test version (fee1dc0f): an output cut inside its first header reports nothing; vLLM "
    "0.33.0 and the newer test version recover the text as final content (recorded golden "
    "tf-gptoss-cut_off_first_header)"
)
_RAISES = (
    "older test version (fee1dc0f): process_chunk raises on a token Harmony rejects; the newer "
    "version (vLLM #51977, test_process_chunk_recovers_from_malformed_header, followed) returns "
    "the rejected text as final content"
)

# "<test id after the file path>:<mode>" (or without ":<mode>" for every mode) -> reason.
NOT_FOLLOWED: dict[str, str] = {
    "TestFlush::test_flush_resets_after_eos_error": _EOS_HEADER,
    "TestProcessChunk::test_invalid_token_sequence_raises_harmony_parser_error": _RAISES,
}

SOURCES = (
    "tests/parser/test_harmony.py",
    "tests/parser/test_harmony_parser.py",
)


@needs_models
@pytest.mark.parametrize(("vec", "mode"), pinned_cases("openai", NOT_FOLLOWED, source=SOURCES[0]))
def test_harmony_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []


@needs_models
@pytest.mark.parametrize(("vec", "mode"), pinned_cases("openai", NOT_FOLLOWED, source=SOURCES[1]))
def test_harmony_parser_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []


@needs_models
@pytest.mark.parametrize(
    ("vec", "mode"),
    pinned_cases(
        "openai_gptoss", NOT_FOLLOWED, source="tests/entrypoints/openai/parser/test_harmony_utils.py"
    ),
)
def test_openai_gptoss_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []


@needs_models
@pytest.mark.parametrize("chunking", ["3", "mix14", "all"])
def test_streams_split_invariant(chunking: str) -> None:
    """The streamed vectors hold in multi-token chunkings too."""
    for vec, mode in (
        p.values for source in SOURCES for p in pinned_cases("openai", NOT_FOLLOWED, source=source)
    ):
        if mode == "streaming":
            assert problems(vec, mode, chunking) == [], vec["source"]


@pytest.mark.parametrize(
    ("text", "bare"),
    [
        ("<|start|>assistant", True),
        ("<|start|>", True),
        ("<|start|>user ", True),
        ("<|start|>assistant<|channel|>fin", False),  # a cut header is recovered as content
        ("<|start|>assistant to=functions.get", False),
        ("<|channel|>analy", False),
        ("<|start|>assist", False),
    ],
)
def test_bare_turn_start(text: str, bare: bool) -> None:
    from tokenfront.parsers.harmony_output import bare_turn_start

    assert bare_turn_start(text) is bare
