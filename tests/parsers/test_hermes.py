"""hermes tool parser: vLLM's hermes tests (transcribed vectors) plus streaming details."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hf_tokenizers import hf_tokenizer
from vllm_vectors_loader import check_result, load_vectors, vector_id

from tokenfront.parsers.base import DeltaMessage, ParseContext, ToolParser
from tokenfront.parsers.registry import get_tool_parser

MODELS = Path(__file__).resolve().parents[3] / "shared" / "models"
if not MODELS.is_dir():
    MODELS = Path(os.environ["TOKENFRONT_TEST_MODELS"])


def tokenizer() -> Any:
    return hf_tokenizer(MODELS / "qwen3")


def make(tools: list[dict[str, Any]] | None = None) -> ToolParser:
    return get_tool_parser("hermes")(tokenizer(), ParseContext(tools=tools, tool_choice="auto"))


def run(parser: ToolParser, pieces: list[tuple[str, list[int]]]) -> list[DeltaMessage | None]:
    state = parser.initial_state()
    out = [parser.stream(state, text, ids) for text, ids in pieces]
    json.dumps(state)
    return out


def token_pieces(text: str, interval: int = 1) -> list[tuple[str, list[int]]]:
    tok = tokenizer()
    ids = tok.encode(text, add_special_tokens=False)
    pieces, shown = [], ""
    for i in range(0, len(ids), interval):
        full = tok.decode(ids[: i + interval], skip_special_tokens=False)
        piece = "" if full.endswith("\ufffd") else full[len(shown) :]
        if piece:
            shown = full
        pieces.append((piece, ids[i : i + interval]))
    return pieces


def collect(deltas: list[DeltaMessage | None]) -> tuple[str | None, list[tuple[str, str]]]:
    content = "".join(d.content or "" for d in deltas if d) or None
    names: dict[int, str] = {}
    args: dict[int, str] = {}
    for d in deltas:
        for tc in d.tool_calls if d else []:
            names[tc.index] = names.get(tc.index, "") + (tc.name or "")
            args[tc.index] = args.get(tc.index, "") + (tc.arguments or "")
    return content, [(names[i], args[i]) for i in sorted(names)]


def _vectors() -> list[dict[str, Any]]:
    return [v for v in load_vectors("hermes", include_xfail=False) if not v.get("vllm_033_differs")]


@pytest.mark.parametrize("vec", _vectors(), ids=vector_id)
def test_hermes_vector(vec: dict[str, Any]) -> None:
    parser = make(vec["tools"])
    if vec["mode"] in ("non_streaming", "both"):
        result = parser.extract_tool_calls(vec["model_output"])
        problems = check_result(
            {**vec, "mode": "non_streaming"},
            content=result.content,
            tool_calls=[(c.name, c.arguments) for c in result.tool_calls],
            tools_called=result.tools_called,
        )
        assert not problems, problems
    if vec["mode"] in ("streaming", "both"):
        for interval in vec.get("stream_intervals") or [1]:
            content, calls = collect(run(make(vec["tools"]), token_pieces(vec["model_output"], interval)))
            problems = check_result({**vec, "mode": "streaming"}, content=content, tool_calls=calls)
            assert not problems, (interval, problems)


def test_one_shot_content_before_call() -> None:
    text = 'Sure.<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>'
    result = make().extract_tool_calls(text)
    assert result.content == "Sure." and [(c.name, c.arguments) for c in result.tool_calls] == [
        ("f", '{"a": 1}')
    ]


def test_one_shot_unclosed_last_call_parses() -> None:
    result = make().extract_tool_calls('<tool_call>{"name": "f", "arguments": {}}')
    assert result.tools_called and result.tool_calls[0].arguments == "{}"


def test_stream_holds_partial_marker() -> None:
    deltas = run(make(), [("Hello <tool", [1]), ("_x", [2])])
    assert deltas[0] is not None and deltas[0].content == "Hello "
    assert deltas[1] is not None and deltas[1].content == "<tool_x"


def test_stream_name_then_arguments_and_bounded_state() -> None:
    parser = make()
    state = parser.initial_state()
    pieces = ["<tool_call>", '\n{"name": "get', '_weather", "arguments": {"city": ', '"Paris"}}',
              "\n</tool_call>", "\n<tool_call>", '{"name": "g", "arguments": {}}', "</tool_call>"]
    deltas = [parser.stream(state, p, [1]) for p in pieces]
    content, calls = collect(deltas)
    assert content is None
    assert calls == [("get_weather", '{"city": "Paris"}'), ("g", "{}")]
    assert state["buf"] == ""  # finished calls are dropped from the state
    assert parser.remaining_args(state) == ""


def test_stream_end_closes_a_call_held_at_an_in_string_marker_and_reads_the_next() -> None:
    # A stray quote leaves the first `</tool_call>` inside an open string, so the stream holds
    # it for a later marker; when the output ends first, that marker closes the call after
    # all and the call behind it is read, as vLLM 0.33.0 streams them (sweep seed 36).
    text = (
        '<tool_call>\n{"name": "search", "arguments": {"q": "x"y"}}\n</tool_call>\n'
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}'
    )
    parser = make()
    state = parser.initial_state()
    deltas = [parser.stream(state, piece, ids) for piece, ids in token_pieces(text)]
    deltas.append(parser.finish(state))
    assert collect(deltas) == (
        None,
        [("search", '{"q": "x"y"}}'), ("get_weather", '{"city": "Paris"}')],
    )


def test_a_brace_before_an_in_string_marker_is_held_as_the_call_closer() -> None:
    # With the marker in the same chunk, the `}` before it is held as the call object's own
    # closer, as vLLM 0.33.0 strips it there (one token per chunk sends it before the marker
    # arrives, as above; sweep seed 43, damaged-qwen3-smallctx-1)
    text = '<tool_call>\n{"name": "search", "arguments": {"q": "x"y"}}'
    parser = make()
    state = parser.initial_state()
    deltas = [parser.stream(state, piece, ids) for piece, ids in token_pieces(text)]
    end = "\n</tool_call>\n<tool_call>\n"
    deltas.append(parser.stream(state, end, tokenizer().encode(end, add_special_tokens=False)))
    assert collect(deltas)[1] == [("search", '{"q": "x"y"}}')]

    parser = make()
    state = parser.initial_state()
    deltas = [parser.stream(state, piece, ids) for piece, ids in token_pieces(text[:-2])]
    deltas.append(parser.stream(state, "}}" + end, tokenizer().encode("}}" + end, add_special_tokens=False)))
    assert collect(deltas)[1] == [("search", '{"q": "x"y"}')]
    deltas.append(parser.finish(state))
    assert collect(deltas)[1] == [("search", '{"q": "x"y"}')]
