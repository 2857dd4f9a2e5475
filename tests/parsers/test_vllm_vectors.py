"""Sanity checks for the vLLM-derived parser vectors (format only; no parser is exercised)."""

from __future__ import annotations

import json

import pytest
from vllm_vectors_loader import (
    check_result,
    check_tool_call,
    load_vectors,
    vector_files,
    vector_parsers,
)

KINDS = {"tool", "reasoning"}
MODES = {"streaming", "non_streaming", "both"}
EXPECTED_KEYS = {"content", "reasoning", "tool_calls", "tools_called"}
REQUIRED = {
    "source",
    "kind",
    "parser",
    "model_output",
    "tools",
    "request",
    "expected",
    "asserted",
    "mode",
    "streaming_only",
    "xfail",
    "notes",
}


def test_every_file_is_a_list_of_vectors() -> None:
    paths = vector_files()
    assert paths, "no vector files"
    for path in paths:
        data = json.loads(path.read_text(encoding="utf-8"))
        assert isinstance(data, list) and data, path.name
        assert path.name.split(".", 1)[0] in vector_parsers()


@pytest.mark.parametrize("parser", vector_parsers())
def test_vector_fields(parser: str) -> None:
    for vec in load_vectors(parser, group=None):
        assert REQUIRED <= vec.keys(), vec["source"]
        assert vec["parser"] == parser
        assert vec["kind"] in KINDS
        assert vec["mode"] in MODES
        assert vec["streaming_only"] == (vec["mode"] == "streaming")
        assert set(vec["expected"]) == EXPECTED_KEYS
        assert isinstance(vec["model_output"], str)
        assert isinstance(vec["asserted"], list)
        assert vec["tools"] is None or isinstance(vec["tools"], list)
        if vec.get("vllm_033_differs"):
            assert vec.get("vllm_033_note")
        if "deltas" in vec:
            assert "".join(vec["deltas"]) == vec["model_output"], vec["source"]
        for call in vec["expected"]["tool_calls"] or []:
            assert {"name", "arguments"} <= call.keys()


def test_filters() -> None:
    tool = load_vectors("hermes", kind="tool")
    assert tool and all(v["kind"] == "tool" for v in tool)
    streaming = load_vectors("hermes", mode="streaming")
    assert all(v["mode"] in ("streaming", "both") for v in streaming)
    assert all(not v.get("xfail") for v in load_vectors("qwen3_xml", include_xfail=False))


def test_helpers_on_a_known_vector() -> None:
    vec = next(
        v
        for v in load_vectors("hermes")
        if v["source"].endswith("test_hermes_parser_non_streaming_tool_call_between_tags[llama]")
    )
    ok = check_result(vec, tool_calls=[("final_answer", '{"trigger": true}')], tools_called=True)
    assert ok == []
    bad = check_result(vec, tool_calls=[("final_answer", '{"trigger": false}')], tools_called=True)
    assert bad
    assert (
        check_tool_call(
            {"name": "f", "arguments": {"a": 1}, "arguments_match": "subset"},
            "f",
            '{"a": 1, "b": 2}',
        )
        == []
    )
