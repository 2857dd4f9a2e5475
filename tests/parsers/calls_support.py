"""Helpers for the python-call / separator tool parser tests (pythonic, lfm2, deepseek, kimi)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from hf_tokenizers import hf_tokenizer

from tokenfront.parsers.base import DeltaMessage, ParseContext, ToolParser
from tokenfront.parsers.registry import get_tool_parser

MODELS = Path(__file__).resolve().parents[3] / "shared" / "models"
if not MODELS.is_dir():
    MODELS = Path(os.environ["TOKENFRONT_TEST_MODELS"])


def tokenizer(model: str) -> Any:
    return hf_tokenizer(MODELS / model)


def tool(name: str, properties: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {"type": "object", "properties": properties or {}},
        },
    }


def make(
    name: str, model: str, tools: list[dict[str, Any]] | None = None, **ctx: Any
) -> ToolParser:
    ctx.setdefault("tool_choice", "auto")
    return get_tool_parser(name)(tokenizer(model), ParseContext(tools=tools, **ctx))


def oneshot(parser: ToolParser, text: str) -> tuple[list[tuple[str, str]], str | None]:
    result = parser.extract_tool_calls(text)
    assert result.tools_called == bool(result.tool_calls) or parser.name.startswith("deepseek")
    return [(c.name, c.arguments) for c in result.tool_calls], result.content


def token_chunks(text: str, model: str, per: int = 1) -> list[tuple[str, list[int]]]:
    """`text` as `per`-token chunks; a chunk ending inside a character carries no text."""
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
    parser: ToolParser, chunks: list[tuple[str, list[int]]], *, finish: bool = True
) -> tuple[list[DeltaMessage | None], str | None, list[tuple[str, str]]]:
    """Feed chunks (state round-tripped through JSON each time); (deltas, content, calls)."""
    state = parser.initial_state()
    deltas: list[DeltaMessage | None] = []
    for text, ids in chunks:
        deltas.append(parser.stream(state, text, ids))
        state = json.loads(json.dumps(state))
    if finish:
        deltas.append(parser.finish(state))
    content = "".join(d.content for d in deltas if d is not None and d.content) or None
    names: dict[int, str] = {}
    args: dict[int, str] = {}
    for delta in deltas:
        for call in delta.tool_calls if delta else ():
            if call.name is not None:
                names[call.index] = names.get(call.index, "") + call.name
            if call.arguments is not None:
                args[call.index] = args.get(call.index, "") + call.arguments
    calls = [(names.get(i, ""), args.get(i, "")) for i in sorted(set(names) | set(args))]
    return deltas, content, calls


MODEL_OF = {
    "pythonic": "llama3",
    "llama4_pythonic": "llama3",
    "lfm2": "synthetic-multi",
    "deepseek_v3": "deepseek",
    "deepseek_v31": "deepseek",
    "kimi_k2": "synthetic-multi",
}


def vectors(parser_name: str) -> list[dict[str, Any]]:
    """vLLM's own test expectations for this parser (those 0.33.0 is known to satisfy)."""
    from vllm_vectors_loader import load_vectors

    return [
        dict(v)
        for v in load_vectors(parser_name, kind="tool")
        if not v.get("xfail") and not v.get("vllm_033_differs")
    ]


def check_vector(parser_name: str, vec: dict[str, Any]) -> list[str]:
    from vllm_vectors_loader import check_result

    model = MODEL_OF[parser_name]
    request = vec.get("request") or {}

    def fresh() -> ToolParser:
        return make(
            parser_name,
            model,
            vec.get("tools"),
            tool_choice=request.get("tool_choice", "auto"),
            chat_template_kwargs=request.get("chat_template_kwargs") or {},
        )

    problems: list[str] = []
    if vec["mode"] in ("non_streaming", "both"):
        parser = fresh()
        result = parser.extract_tool_calls(vec["model_output"])
        calls = [(c.name, c.arguments) for c in result.tool_calls]
        problems += check_result(
            vec, content=result.content, tool_calls=calls, tools_called=result.tools_called
        )
    if vec["mode"] in ("streaming", "both"):
        if vec.get("deltas"):
            chunks = [(d, []) for d in vec["deltas"]]
        else:
            chunks = token_chunks(vec["model_output"], model)
        _, content, calls = run_stream(fresh(), chunks)
        problems += [f"stream: {p}" for p in check_result(vec, content=content, tool_calls=calls)]
    return problems
