"""Shared helpers for the XML-style tool parser tests (golden facts + own cases)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from hf_tokenizers import hf_tokenizer

from tokenfront.parsers.base import DeltaMessage, ParseContext, ToolParser
from tokenfront.parsers.registry import get_tool_parser

MODELS = Path(os.environ["TOKENFRONT_TEST_MODELS"])
GOLDEN = Path(__file__).parent / "data" / "xml_golden.json"


def tokenizer(model: str = "qwen3") -> Any:
    return hf_tokenizer(MODELS / model)


def make(
    name: str,
    model: str = "qwen3",
    tools: list[dict[str, Any]] | None = None,
    tool_choice: Any = "auto",
    reasoning_parser: bool = False,
    **ctx: Any,
) -> ToolParser:
    parser = get_tool_parser(name)(
        tokenizer(model), ParseContext(tools=tools, tool_choice=tool_choice, **ctx)
    )
    if not reasoning_parser:
        parser.skip_reasoning_parsing = True  # type: ignore[attr-defined]
    return parser


def oneshot(parser: ToolParser, text: str) -> tuple[list[tuple[str, str]], str | None]:
    result = parser.extract_tool_calls(text)
    assert result.tools_called == bool(result.tool_calls)
    return [(c.name, c.arguments) for c in result.tool_calls], result.content


def token_chunks(text: str, model: str = "qwen3", per: int = 1) -> list[tuple[str, list[int]]]:
    """`text` as a stream of `per`-token chunks, decoded the way an incremental detokenizer
    would (a chunk ending inside a multi-byte character carries no text)."""
    tok = tokenizer(model)
    ids = tok.encode(text, add_special_tokens=False)
    chunks: list[tuple[str, list[int]]] = []
    shown = ""
    for i in range(0, len(ids), per):
        full = tok.decode(ids[: i + per], skip_special_tokens=False)
        if full.endswith("\ufffd"):
            chunks.append(("", ids[i : i + per]))
            continue
        chunks.append((full[len(shown) :], ids[i : i + per]))
        shown = full
    return chunks


def run_stream(
    parser: ToolParser, chunks: list[tuple[str, list[int]]] | list[str]
) -> tuple[str, list[tuple[str, str]], list[DeltaMessage | None]]:
    """Feed chunks (through a JSON round trip of the state each time) and finish."""
    state = parser.initial_state()
    deltas: list[DeltaMessage | None] = []
    for chunk in chunks:
        text, ids = (chunk, []) if isinstance(chunk, str) else chunk
        state = json.loads(json.dumps(state))
        deltas.append(parser.stream(state, text, ids))
    deltas.append(parser.finish(state))
    content = ""
    calls: dict[int, list[str]] = {}
    for delta in deltas:
        if delta is None:
            continue
        content += delta.content or ""
        for call in delta.tool_calls:
            entry = calls.setdefault(call.index, ["", ""])
            entry[0] += call.name or ""
            entry[1] += call.arguments or ""
            if call.name is not None:
                assert call.id and call.type == "function"
    return content, [(n, a) for _, (n, a) in sorted(calls.items())], deltas


def golden(parser: str, kind: str) -> list[dict[str, Any]]:
    cases = json.loads(GOLDEN.read_text())
    return [c for c in cases if c["parser"] == parser and c["kind"] == kind]


def check_golden_oneshot(case: dict[str, Any]) -> None:
    parser = make(
        case["parser"], case["model"], case["tools"], case["tool_choice"] or "auto",
        reasoning_parser=case["reasoning_parser"],
    )  # fmt: skip
    calls, content = oneshot(parser, case["text"])
    assert calls == [tuple(c) for c in case["tool_calls"]]
    if not case["reasoning_parser"]:
        assert content == case["content"]


def check_golden_stream(case: dict[str, Any]) -> None:
    parser = make(
        case["parser"], case["model"], case["tools"], case["tool_choice"] or "auto",
        reasoning_parser=case["reasoning_parser"],
    )  # fmt: skip
    state = parser.initial_state()
    for chunk in case["chunks"]:
        state = json.loads(json.dumps(state))
        delta = parser.stream(state, chunk["text"], chunk["ids"])
        if chunk["finished"]:
            tail = parser.finish(state)
            if tail is not None:
                delta = delta or DeltaMessage()
                delta.content = ((delta.content or "") + (tail.content or "")) or None
                delta.tool_calls = delta.tool_calls + tail.tool_calls
        got = [[t.index, t.name, t.arguments] for t in (delta.tool_calls if delta else [])]
        assert got == chunk["tool_calls"], chunk
        if not case["reasoning_parser"]:
            assert (delta.content if delta else None) == chunk["content"], chunk


def tool(name: str, properties: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {"type": "object", "properties": properties or {}},
        },
    }
