"""vLLM parser-test vectors streamed in several token chunkings (issue 8).

An addition to `vllm_vectors_run` (same `ChatOutputParser` over the same model tokenizers): a
stream is fed `chunk` tokenizer tokens per delta (None: the whole output in one delta), or
grouped along the vector's own text `deltas` / character `chunk_size`, as a derender client
sending chunks of generated tokens would. The request declares one tool per function name the
output calls, markup calls (`<invoke name="f">`) included.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import vllm_vectors_run as run
from vllm_vectors_loader import check_result

from tokenfront.parsers.base import ParseContext

Result = tuple[str | None, str | None, list[tuple[str | None, str | None]]]

# Token chunkings every streaming vector is checked with ("vector": the test's own deltas).
CHUNKINGS: tuple[int | str | None, ...] = (1, 2, 3, 5, 8, None, "vector")

_JSON_NAME = re.compile(r'"name":\s*"([A-Za-z_][\w.-]*)"')
_MARKUP_NAME = re.compile(r'invoke name=["\']?([A-Za-z_][\w.-]*)')


# Parsers whose markers the runner's model lacks as single tokens: a test model that has them.
MODEL_OVERRIDE = {
    "llama4_pythonic": str(Path(__file__).resolve().parents[1] / "models" / "llama4-markers"),
}


def _model(vec: dict[str, Any]) -> str:
    if vec["parser"] in MODEL_OVERRIDE:
        return MODEL_OVERRIDE[vec["parser"]]
    pick = getattr(run, "model_for", None)
    return pick(vec) if pick else run.MODEL_FOR.get(vec["parser"], "synthetic-multi")


def _parser(vec: dict[str, Any]) -> tuple[Any, Any]:
    if vec["parser"] not in MODEL_OVERRIDE and hasattr(run, "vector_parser"):
        return run.vector_parser(vec)  # the vector's reasoning parser too, when it names one
    try:
        return run.output_parser(vec["parser"], _model(vec))  # type: ignore[call-arg]
    except TypeError:
        return run.output_parser(vec["parser"])


def request_context(vec: dict[str, Any]) -> ParseContext:
    """The vector's tools, or one per function name the output calls (JSON or markup)."""
    ctx = run.request_context(vec)
    if vec.get("tools") is not None:  # `[]`: the request declares no tools
        return ctx
    names = {c["name"] for c in vec["expected"].get("tool_calls") or [] if c.get("name")}
    names |= set(_JSON_NAME.findall(vec["model_output"]))
    names |= set(_MARKUP_NAME.findall(vec["model_output"]))
    ctx.tools = [
        {"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
        for n in sorted(names or {"dummy_tool"})
    ]
    return ctx


def one_shot(vec: dict[str, Any]) -> Result:
    parser, tok = _parser(vec)
    text = vec["model_output"]
    message = parser.parse(text, tok.encode(text, add_special_tokens=False), request_context(vec))
    calls = [(c["function"]["name"], c["function"]["arguments"]) for c in message["tool_calls"]]
    return message["content"], message["reasoning"], calls


def _text_bounds(vec: dict[str, Any]) -> list[int] | None:
    """Character offsets where the vector's own deltas end (None: it has none)."""
    text = vec["model_output"]
    if vec.get("deltas"):
        ends, at = [], 0
        for piece in vec["deltas"]:
            at += len(piece)
            ends.append(at)
        return ends
    size = vec.get("chunk_size")
    if vec.get("chunking") == "characters" and isinstance(size, int) and size > 0:
        return [*range(size, len(text), size), len(text)]
    return None


def _groups(vec: dict[str, Any], tok: Any, ids: list[int], chunk: int | str | None) -> list[int]:
    """Token counts per delta for a chunking."""
    if chunk == "vector":
        bounds = _text_bounds(vec)
        if bounds is None:
            return [1] * len(ids)
        out: list[int] = []
        start = 0
        for i in range(len(ids)):
            end = len(tok.decode(ids[: i + 1], skip_special_tokens=False))
            if i == len(ids) - 1 or any(b <= end for b in bounds if b > 0):
                out.append(i + 1 - start)
                start = i + 1
                bounds = [b for b in bounds if b > end]
        return out
    size = int(chunk) if chunk else max(len(ids), 1)
    return [min(size, len(ids) - s) for s in range(0, len(ids), size)]


def streamed(vec: dict[str, Any], chunk: int | str | None = 1) -> Result:
    parser, tok = _parser(vec)
    ids = tok.encode(vec["model_output"], add_special_tokens=False)
    ctx = request_context(vec)
    state = None
    shown = ""
    content = reasoning = ""
    calls: dict[int, list[Any]] = {}
    end = 0
    for count in _groups(vec, tok, ids, chunk):
        start, end = end, end + count
        full = tok.decode(ids[:end], skip_special_tokens=False)
        piece = "" if full.endswith("\ufffd") else full[len(shown) :]
        if piece:
            shown = full
        delta, state = parser.stream(state, piece, ids[start:end], ctx, finished=end == len(ids))
        if delta is None:
            continue
        content += delta.content or ""
        reasoning += delta.reasoning or ""
        for tc in delta.tool_calls or []:
            slot = calls.setdefault(tc.index, [None, ""])
            slot[0] = tc.name or slot[0]
            slot[1] += tc.arguments or ""
    return content or None, reasoning or None, [tuple(calls[k]) for k in sorted(calls)]


def problems(vec: dict[str, Any], mode: str, chunk: int | str | None = 1) -> list[str]:
    """Problems of one run; a streaming run feeds deltas as `chunk` says."""
    if mode == "non_streaming":
        content, reasoning, calls = one_shot(vec)
    else:
        content, reasoning, calls = streamed(vec, chunk)
    checked = dict(vec, mode=mode)
    return check_result(
        checked, content=content, reasoning=reasoning, tool_calls=calls, tools_called=bool(calls)
    )


def all_problems(vec: dict[str, Any]) -> dict[str, list[str]]:
    """Problems per run: one-shot, and streamed in every chunking of `CHUNKINGS`."""
    out: dict[str, list[str]] = {}
    for mode in run.modes(vec):
        for chunk in CHUNKINGS if mode == "streaming" else (None,):
            found = problems(vec, mode, chunk)
            if found:
                out[mode if mode == "non_streaming" else f"stream:{chunk}"] = found
    return out


def cases(parser: str, sources: set[str], kind: str = "tool") -> list[Any]:
    """pytest params (vector, mode, chunk) for the vectors whose test name is in `sources`."""
    import pytest
    from vllm_vectors_loader import load_vectors

    out = []
    for vec in load_vectors(parser, kind=kind):
        if vec["source"].split("::")[-1] not in sources:
            continue
        for mode in run.modes(vec):
            for chunk in CHUNKINGS if mode == "streaming" else (None,):
                label = f"{vec['source']}:{mode}" + (f":{chunk}" if mode == "streaming" else "")
                out.append(pytest.param(vec, mode, chunk, id=label))
    return out
