"""vLLM's cross-parser tool tests (issue 8, group "tools-extra") pinned through the served pipeline.

Vectors from `vllm-project/vllm`
tests/tool_parsers/test_format_conformance.py (each parser's documented wire format, one-shot) and
tests/tool_parsers/test_cohere_command_tool_parser.py (the pre-engine Cohere tool-parser test; only
its cases the engine-era tests/parser/cohere/test_tool_calls.py vectors do not cover) and
tests/tool_parsers/test_rust_tool_parser.py (a post-0.33.0 Rust-bridge parser, run under the served
parser of its format: deepseek_v4 / kimi_k2)
(tests/parsers/vllm_vectors/<parser>.tools-extra.json), one-shot and streamed one token per delta
by `vllm_vectors_run`. `NOT_FOLLOWED` lists the vectors tokenfront does not satisfy, with the
reason (docs/deviations.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from vllm_vectors_loader import load_vectors
from vllm_vectors_run import needs_models, pinned_cases, problems, request_context, vector_parser

SOURCES = {
    "tests/tool_parsers/test_format_conformance.py": (
        "hermes",
        "pythonic",
        "mistral",
        "qwen3_xml",
        "kimi_k2",
        "deepseek_v3",
        "minimax_m2",
        "glm45",
        "qwen3_coder",
        "deepseek_v4",
    ),
    "tests/tool_parsers/test_cohere_command_tool_parser.py": ("cohere_command3", "cohere_command4"),
    "tests/tool_parsers/test_rust_tool_parser.py": ("deepseek_v4", "kimi_k2"),
}

# "<test id after the file path>:<mode>" (or without ":<mode>" for every mode) -> reason.
NOT_FOLLOWED: dict[str, str] = {
    "test_streaming_parse_error_preserves_committed_model_tool_call_id": (
        "post-0.33.0 Rust-bridge parser reports a call with an unparsable header ('invalid') as "
        "content; vLLM 0.33.0's kimi_k2 drops it (nothing as content), as the kimi_k2 parser's own "
        "test_invalid_funcall_id_skipped expects"
    ),
}


def _cases() -> list[Any]:
    out = []
    for source, parsers in SOURCES.items():
        for parser in parsers:
            out.extend(pinned_cases(parser, NOT_FOLLOWED, source=source))
    return out


@needs_models
@pytest.mark.parametrize(("vec", "mode"), _cases())
def test_vllm_vector(vec: dict[str, Any], mode: str) -> None:
    assert problems(vec, mode) == []


def _single_field_vectors() -> list[Any]:
    out = []
    for parsers in SOURCES.values():
        for parser in parsers:
            for vec in load_vectors(parser, group="tools-extra"):
                if "single_field_deltas" in vec["asserted"]:
                    out.append(pytest.param(vec, id=vec["source"].split("::", 1)[1]))
    return out


@needs_models
@pytest.mark.parametrize("vec", _single_field_vectors())
def test_single_field_deltas(vec: dict[str, Any]) -> None:
    """Streamed one token per delta, every delta carries exactly one of content / reasoning /
    tool calls (vLLM's TestStreamingDeltaShape)."""
    parser, tok = vector_parser(vec)
    ctx = request_context(vec)
    ids = tok.encode(vec["model_output"], add_special_tokens=False)
    state, shown, kinds = None, "", set()
    for end in range(1, len(ids) + 1):
        full = tok.decode(ids[:end], skip_special_tokens=False)
        piece = "" if full.endswith("\ufffd") else full[len(shown) :]
        if piece:
            shown = full
        delta, state = parser.stream(
            state, piece, ids[end - 1 : end], ctx, finished=end == len(ids)
        )
        if delta is None:
            continue
        present = [
            name
            for name, value in (
                ("content", delta.content),
                ("reasoning", delta.reasoning),
                ("tool_calls", delta.tool_calls),
            )
            if value
        ]
        assert len(present) <= 1, (end, present)
        kinds.update(present)
    assert {"reasoning", "tool_calls"} <= kinds
