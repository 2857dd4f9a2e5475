"""kimi_k2: golden vLLM answers, vLLM's own test vectors, own cases."""

from __future__ import annotations

import pytest
from calls_support import check_vector, make, oneshot, run_stream, token_chunks, tool, vectors

from tokenfront.parsers.engines.schema_types import coerce_arguments

MODEL = "synthetic-multi"
S, SE = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
CB, CE, A = "<|tool_call_begin|>", "<|tool_call_end|>", "<|tool_call_argument_begin|>"


def parser(tools=None, **kw):
    return make("kimi_k2", MODEL, tools if tools is not None else [tool("get_weather")], **kw)


def ids_of(p, text: str) -> list[tuple[str | None, str, str]]:
    return [(c.id, c.name, c.arguments) for c in p.extract_tool_calls(text).tool_calls]


# The tool parser on its own, as the tool-parser tests build it; vectors of the served pairing
# (`reasoning_parser`) and of vLLM's engine tests (reasoning markup handled by the serving
# wiring) run through the pipeline in test_vllm_vectors_kimi_k2.py.
DIRECT = [
    v
    for v in vectors("kimi_k2")
    if not v.get("reasoning_parser") and not v["source"].startswith("tests/parser/engine/")
]


@pytest.mark.parametrize("vec", DIRECT, ids=lambda v: v["source"].split("::")[-1])
def test_vllm_vectors(vec: dict) -> None:
    assert check_vector("kimi_k2", vec) == []


# Golden (vLLM 0.33.0, syn-kimi_k2 config).
def test_golden_ids_from_header() -> None:
    text = (
        f'{S}{CB}functions.get_weather:0{A}{{"city": "New York"}}{CE}'
        f'{CB}functions.get_weather:1{A}{{"city": "東京", "unit": "celsius"}}{CE}{SE}'
    )
    assert ids_of(parser(), text) == [
        ("functions.get_weather:0", "get_weather", '{"city": "New York"}'),
        ("functions.get_weather:1", "get_weather", '{"city": "東京", "unit": "celsius"}'),
    ]
    assert parser().extract_tool_calls("\n\n" + text).content is None


def test_golden_stream_holds_top_level_brace() -> None:
    chunks = [
        (S, [1]),
        (CB, [2]),
        ("functions", [3]),
        (".get", [4]),
        ("_time", [5]),
        (":", [6]),
        ("0", [7]),
        (A, [8]),
        ("{}", [9]),
        (CE, [10]),
        (SE, [11]),
    ]
    deltas, _, calls = run_stream(parser(), chunks)
    assert deltas[:8] == [None] * 8
    first = deltas[8].tool_calls[0]
    assert (first.id, first.name, first.arguments) == ("functions.get_time:0", "get_time", "{")
    assert deltas[9].tool_calls[0].arguments == "}"
    assert calls == [("get_time", "{}")]


def test_golden_whitespace_content_waits_for_text() -> None:
    deltas, content, _ = run_stream(parser([]), [("\n\n", [1]), ("C", [2]), ("ris", [3])])
    assert deltas[0] is None and deltas[1].content == "\n\nC" and content == "\n\nCris"


# Own cases.
def test_text_after_section_dropped_and_before_kept() -> None:
    text = f"Hi {S}{CB}functions.f:0{A}{{}}{CE}{SE} trailing"
    assert oneshot(parser(), text) == ([("f", "{}")], "Hi ")


def test_schema_coercion() -> None:
    weather = tool("w", {"days": {"type": "integer"}, "city": {"type": "string"}})
    text = f'{S}{CB}functions.w:0{A}{{"days": "3", "city": 5}}{CE}{SE}'
    assert oneshot(parser([weather]), text)[0] == [("w", '{"days": 3, "city": "5"}')]
    assert coerce_arguments('{"a": 1}', None) == '{"a": 1}'


def test_cut_off_call() -> None:
    text = f'{S}{CB}functions.f:3{A}{{"a": "x'
    assert ids_of(parser(), text) == [("functions.f:3", "f", '{"a": "x')]
    _, _, calls = run_stream(parser(), token_chunks(text, MODEL))
    assert calls == [("f", '{"a": "x')]


def test_bad_header_dropped() -> None:
    assert oneshot(parser(), f"{S}{CB}nonsense{A}{{}}{CE}{SE}") == ([], None)


def test_tool_choice_none_suppresses() -> None:
    text = f"Hi {S}{CB}functions.f:0{A}{{}}{CE}{SE}"
    assert oneshot(parser(tool_choice="none"), text) == ([], "Hi ")


def test_stream_matches_oneshot_by_tokens() -> None:
    text = f'Sure.{S}{CB}functions.get_weather:0{A}{{"city": "São Paulo"}}{CE}{SE}'
    _, content, calls = run_stream(parser(), token_chunks(text, MODEL))
    assert content == "Sure." and calls == oneshot(parser(), text)[0]


def test_think_markers_without_reasoning_parser() -> None:
    plain = parser()
    assert oneshot(plain, "a</think>b") == ([], "ab")
    plain.skip_reasoning_parsing = True  # type: ignore[attr-defined]
    assert oneshot(plain, "a</think>b") == ([], "a</think>b")
