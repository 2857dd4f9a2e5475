"""Helpers for the JSON-style tool parser tests (llama3/4 JSON, mistral, phi4-mini, xLAM, InternLM2,
Jamba, Granite, Granite 4, Hunyuan-A13B, ERNIE 4.5).

Parsers run through the real pipeline (`ChatOutputParser`, no reasoning parser), so tool_choice
handling and the end-of-stream flush are exercised as the derender endpoint does. Golden cases
(vLLM 0.33.0 derender answers for the parity configs) live in `data/json_golden.json`.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Any

from hf_tokenizers import hf_tokenizer
from partial_json_parser import ensure_json

from tokenfront.parsers.base import DeltaMessage, ParseContext
from tokenfront.parsers.pipeline import ChatOutputParser

MODELS = Path(__file__).resolve().parents[3] / "shared" / "models"
if not MODELS.is_dir():
    MODELS = Path(os.environ["TOKENFRONT_TEST_MODELS"])
GOLDEN = Path(__file__).parent / "data" / "json_golden.json"

Calls = list[tuple[str, str]]


def tokenizer(model: str) -> Any:
    """`mistral` is the Hugging Face tokenizer.json; `mistral-common` the tekken file."""
    if model == "mistral":
        return hf_tokenizer(MODELS / "mistral", mistral_format=False)
    if model == "mistral-common":
        return hf_tokenizer(MODELS / "mistral")
    return hf_tokenizer(MODELS / model)


def tool(name: str, properties: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {"type": "object", "properties": properties or {}},
        },
    }


TOOLS = [
    tool("get_weather", {"city": {"type": "string"}, "unit": {"type": "string"}}),
    tool("get_time"),
    tool("book_flight", {"origin": {"type": "string"}, "passengers": {"type": "array"},
                         "options": {"type": "object"}}),
]  # fmt: skip


def pipeline(parser: str, model: str) -> ChatOutputParser:
    return ChatOutputParser(tokenizer(model), parser, None, enable_auto_tools=True)


def context(tools: list[dict[str, Any]] | None = TOOLS, tool_choice: Any = None) -> ParseContext:
    if tool_choice is None:
        tool_choice = "auto" if tools else "none"
    return ParseContext(tools=tools, tool_choice=tool_choice, prompt_token_ids=[])


def oneshot(
    parser: str, model: str, text: str, tools: list[dict[str, Any]] | None = TOOLS,
    tool_choice: Any = None,
) -> tuple[str | None, Calls]:
    """(content, [(name, arguments)]) of a one-shot parse; every call has an id."""
    message = pipeline(parser, model).parse(text, [], context(tools, tool_choice))
    calls = message["tool_calls"]
    assert all(call["id"] for call in calls)
    return message["content"], [(c["function"]["name"], c["function"]["arguments"]) for c in calls]


def delta_dict(delta: DeltaMessage | None) -> dict[str, Any]:
    """A delta as the golden chunks show it: nulls and ids left out."""
    if delta is None:
        return {}
    out: dict[str, Any] = {}
    if delta.content is not None:
        out["content"] = delta.content
    if delta.reasoning is not None:
        out["reasoning"] = delta.reasoning
    if delta.tool_calls:
        calls = []
        for call in delta.tool_calls:
            item = call.to_dict()
            if "id" in item:
                assert item["id"]
                del item["id"]
            calls.append(item)
        out["tool_calls"] = calls
    return out


def stream(
    parser: str, model: str, chunks: list[tuple[str, list[int]]],
    tools: list[dict[str, Any]] | None = TOOLS, tool_choice: Any = None,
) -> list[dict[str, Any]]:
    """Deltas for each chunk (the last one finishes the stream); state JSON round-tripped."""
    pipe = pipeline(parser, model)
    ctx = context(tools, tool_choice)
    state = None
    out = []
    for i, (text, ids) in enumerate(chunks):
        delta, state = pipe.stream(state, text, ids, ctx, finished=i == len(chunks) - 1)
        state = json.loads(json.dumps(state))
        out.append(delta_dict(delta))
    return out


def token_chunks(text: str, model: str) -> list[tuple[str, list[int]]]:
    """One token per chunk; a chunk ending inside a character carries no text."""
    tok = tokenizer(model)
    ids = tok.encode(text, add_special_tokens=False)
    chunks: list[tuple[str, list[int]]] = []
    shown = ""
    for i in range(len(ids)):
        full = tok.decode(ids[: i + 1], skip_special_tokens=False)
        if full.endswith("\ufffd"):
            chunks.append(("", ids[i : i + 1]))
            continue
        chunks.append((full[len(shown) :], ids[i : i + 1]))
        shown = full
    return chunks


def joined(deltas: list[dict[str, Any]]) -> tuple[str | None, Calls]:
    """Concatenated content and (name, arguments) per call index."""
    content = "".join(d.get("content") or "" for d in deltas) or None
    names: dict[int, str] = {}
    args: dict[int, str] = {}
    for delta in deltas:
        for call in delta.get("tool_calls", []):
            function = call.get("function", {})
            if "name" in function:
                names[call["index"]] = names.get(call["index"], "") + function["name"]
            if "arguments" in function:
                args[call["index"]] = args.get(call["index"], "") + function["arguments"]
    return content, [(names.get(i, ""), args.get(i, "")) for i in sorted(set(names) | set(args))]


@functools.cache
def _golden() -> tuple[dict[str, Any], ...]:
    return tuple(json.loads(GOLDEN.read_text(encoding="utf-8")))


def golden_cases(parser: str) -> list[dict[str, Any]]:
    return [dict(case) for case in _golden() if case["parser"] == parser]


def check_golden(case: dict[str, Any]) -> None:
    parser, model = case["parser"], case["model"]
    if case["kind"] == "oneshot":
        if case["status"] != 200:
            try:
                oneshot(parser, model, case["text"], case["tools"], case["tool_choice"])
            except Exception:
                return
            raise AssertionError("expected the parse to fail (vLLM answers 400)")
        content, calls = oneshot(parser, model, case["text"], case["tools"], case["tool_choice"])
        assert content == case["expected"]["content"]
        assert calls == [tuple(c) for c in case["expected"]["tool_calls"]]
        return
    chunks = [(text, ids) for text, ids, _finished in case["chunks"]]
    got = stream(parser, model, chunks, case["tools"], case["tool_choice"])
    assert got == case["expected"]


# ── vLLM's own parser unit tests (tests/parsers/vllm_vectors) ──────────────────────────────
MODEL_OF = {
    "llama3_json": "llama3",
    "mistral": "mistral",
    "phi4_mini_json": "synthetic-multi",
    "xlam": "synthetic-multi",
    "internlm": "synthetic-multi",
    "jamba": "synthetic-multi",
    "granite": "synthetic-multi",
    "granite4": "synthetic-multi",
    "hunyuan_a13b": "synthetic-multi",
    "ernie45": "synthetic-multi",
}
# Tests written against later vLLM code than 0.33.0, whose parser behaves otherwise.
NOT_033 = {
    # 0.33.0's granite4 stream stays "inside a call" after a call closed in one delta (it sets
    # `start_in_tc` instead of `in_tc`), so text before the next call is lost.
    "tests/tool_parsers/test_granite4_tool_parser.py::"
    "test_streaming_preserves_content_between_complete_tool_calls",
}


def vectors(name: str) -> list[dict[str, Any]]:
    """vLLM's own unit-test expectations for this parser that 0.33.0 satisfies."""
    from vllm_vectors_loader import load_vectors

    return [
        vec
        for vec in load_vectors(name, kind="tool", include_xfail=False)
        if not vec.get("vllm_033_differs")
        and vec.get("mistral_tokenizer") != "v11"  # v11+ format: not these tokenizers
        and vec["source"] not in NOT_033
    ]


def check_vector(vec: dict[str, Any]) -> list[str]:
    """Problems found running one vLLM test vector (empty = pass)."""
    from vllm_vectors_loader import check_result

    name = vec["parser"]
    model = MODEL_OF[name]
    request = vec.get("request") or {}
    tools = vec.get("tools")
    choice = request.get("tool_choice") or "auto"
    problems: list[str] = []
    if vec["mode"] in ("non_streaming", "both"):
        pipe = pipeline(name, model)
        tool = pipe._tool(context(tools, choice))
        assert tool is not None
        result = tool.extract_tool_calls(vec["model_output"])
        calls = [(c.name, c.arguments) for c in result.tool_calls]
        problems += check_result(
            vec, content=result.content, tool_calls=calls, tools_called=result.tools_called
        )
    if vec["mode"] in ("streaming", "both"):
        chunks = (
            [(d, []) for d in vec["deltas"]]
            if vec.get("deltas")
            else token_chunks(vec["model_output"], model)
        )
        content, calls = joined(direct_stream(name, model, chunks, tools, choice))
        if "ensure_json" in vec.get("notes", ""):
            # The vLLM test closes the streamed arguments before comparing them.
            calls = [(n, ensure_json(a)) for n, a in calls]
        problems += [f"stream: {p}" for p in check_result(vec, content=content, tool_calls=calls)]
    return problems


def direct_stream(name: str, model: str, chunks: list, tools: list | None, choice: str) -> list:
    """The tool parser alone, as vLLM's unit tests drive it (no end-of-stream argument tail)."""
    tool = pipeline(name, model)._tool(context(tools, choice))
    assert tool is not None
    state = tool.initial_state()
    out = []
    for text, ids in chunks:
        out.append(delta_dict(tool.stream(state, text, ids)))
        state = json.loads(json.dumps(state))
    out.append(delta_dict(tool.finish(state)))
    return out
