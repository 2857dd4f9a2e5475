"""Run vLLM parser-test vectors through tokenfront's `ChatOutputParser` (one-shot and streaming).

Shared by the `test_vllm_vectors_<family>.py` regression modules. The pipeline is built with
`build_output_parser` over a real model tokenizer from ../shared/models; streams feed one
tokenizer token per delta, as vLLM's derender does for one-token chunks (a vector marked
`test_deltas_only` is fed in its test's own deltas instead).
"""

from __future__ import annotations

import functools
import json
import os
import random
import re
import zlib
from pathlib import Path
from typing import Any

import pytest
from vllm_vectors_loader import check_result

from tokenfront.config import ModelOptions
from tokenfront.parsers.base import ParseContext
from tokenfront.parsers.pipeline import ChatOutputParser, build_output_parser

MODELS = Path(__file__).resolve().parents[3] / "shared" / "models"
if not MODELS.is_dir():
    MODELS = Path(os.environ["TOKENFRONT_TEST_MODELS"])

# Model directory whose tokenizer holds the parser's marker tokens.
MODEL_FOR = {
    "qwen3_coder": "qwen3",
    "qwen3_xml": "qwen3",
    "hermes": "qwen3",
    "llama3_json": "llama3",
    "llama4_json": "llama3",
    "pythonic": "llama3",
    # Llama 3's tokenizer plus <|python_start|>/<|python_end|> as single tokens (as in Llama 4).
    "llama4_pythonic": str(Path(__file__).resolve().parents[1] / "models" / "llama4-markers"),
    "deepseek_v3": "deepseek",
    "deepseek_v31": "deepseek",
    "mistral": "mistral",
    "minicpmv": "qwen3",
    "inkling": str(Path(__file__).resolve().parents[1] / "models" / "groupc-markers"),
    # the Gemma 4 response_template of vLLM's test_response_template.py
    "hf": str(Path(__file__).resolve().parents[1] / "models" / "rtemplate-gemma"),
    # Parsers of the later groups: the model dirs their recorded goldens use.
    "minimax_m3": str(Path(__file__).resolve().parents[1] / "models" / "minimax-m3"),
    "kimi_k3": str(Path(__file__).resolve().parents[1] / "models" / "groupc-markers"),
    "k2_horizon": str(Path(__file__).resolve().parents[1] / "models" / "groupc-markers"),
    "poolside_v1": str(Path(__file__).resolve().parents[1] / "models" / "poolside-synth"),
    # Qwen3 plus PLaMo 3's atomic marker pieces as tokens (vLLM's plamo3 test tokenizers).
    "plamo3": str(Path(__file__).resolve().parents[1] / "models" / "plamo3-markers"),
    "step3p5": "qwen3",
    "deepseek_v32": "deepseek",
    "deepseek_v4": "deepseek",
    "deepseek_v41": "deepseek",
    "cohere_command3": str(Path(__file__).resolve().parents[1] / "models" / "cohere-synth"),
    "cohere_command4": str(Path(__file__).resolve().parents[1] / "models" / "cohere-synth"),
    "hy_v3": str(Path(__file__).resolve().parents[1] / "models" / "hy-synth"),
    "hy_v4": str(Path(__file__).resolve().parents[1] / "models" / "hy-synth"),
    "muse": str(Path(__file__).resolve().parents[1] / "models" / "groupc-markers"),
    "muse_glimmer": str(Path(__file__).resolve().parents[1] / "models" / "groupc-markers"),
    "musespark1x": str(Path(__file__).resolve().parents[1] / "models" / "groupc-markers"),
    "granite-20b-fc": "qwen3",
    "granite_thinking_parser": "qwen3",
    "holo2": "qwen3",
    "nemotron_v3": "qwen3",
    # gemma4 / functiongemma / apertus / gigachat3 / dots / longcat / mimo / minicpm5: the model
    # dirs of their recorded goldens (tests/golden/configs-group{a,b,c}.json).
    "gemma4": str(Path(__file__).resolve().parents[1] / "models" / "groupc-markers"),
    "functiongemma": str(Path(__file__).resolve().parents[1] / "models" / "groupc-markers"),
    "apertus": "qwen3",
    "gigachat3": "qwen3",
    "dots": "qwen3",
    "longcat": "qwen3",
    "mimo": "qwen3",
    "minicpm5": "qwen3",
}

# Vectors whose vLLM test used a v11+ Mistral tokenizer ("mistral_tokenizer"): the shared tekken
# tokenizer plus an `[ARGS]` token, which makes a Hugging Face-mode tokenizer v11 for vLLM.
MISTRAL_V11 = Path(__file__).resolve().parents[1] / "models" / "mistral-v11"
# ... and v13 reasoning vectors: that plus `[THINK]` / `[/THINK]` as special tokens.
MISTRAL_V13 = Path(__file__).resolve().parents[1] / "models" / "mistral-v13"
# v11 reasoning vectors (`<think>` as text): a v11 tekken tokenizer read by mistral-common
# (`--tokenizer-mode mistral`), which has grammar support as the test's Magistral tokenizer.
MISTRAL_V11_TEKKEN = Path(__file__).resolve().parents[1] / "models" / "mistral-v11-tekken"

# openai (gpt-oss Harmony) vectors: vLLM's tests render Harmony token ids, so they run on the
# gpt-oss test model (built on demand from tests/models/gpt-oss-src), read as the server does.
GPT_OSS_BUILDER = Path(__file__).resolve().parents[1] / "models" / "gpt-oss-src" / "build.py"

needs_models = pytest.mark.skipif(not MODELS.is_dir(), reason="../shared/models is absent")


@functools.cache
def _tokenizer(model: str) -> Any:
    from hf_tokenizers import hf_tokenizer

    path = MODELS / model
    if path == MISTRAL_V11_TEKKEN:  # served with --tokenizer-mode mistral
        from tokenfront.tokenization.mistral import load_mistral_tokenizer

        return load_mistral_tokenizer(path)
    # As the server loads it in Hugging Face mode (tokenizer.json, special tokens in text).
    kwargs = {"mistral_format": False} if (path / "tekken.json").exists() else {}
    return hf_tokenizer(path, **kwargs)


@functools.cache
def gpt_oss_model() -> str:
    import importlib.util

    spec = importlib.util.spec_from_file_location("_gpt_oss_build", GPT_OSS_BUILDER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return str(module.build())


def model_for(vec: dict[str, Any]) -> str:
    if vec.get("test_model"):  # a tests/models dir with the vocabulary the vLLM test used
        return str(Path(__file__).resolve().parents[1] / "models" / vec["test_model"])
    if vec.get("mistral_tokenizer") == "v13" and vec.get("kind") == "reasoning":
        return str(MISTRAL_V13)
    if vec.get("mistral_tokenizer") == "v11" and vec.get("kind") == "reasoning":
        return str(MISTRAL_V11_TEKKEN)
    if vec.get("mistral_tokenizer") in ("v11", "v13"):
        return str(MISTRAL_V11)
    if vec["parser"] == "openai" and GPT_OSS_BUILDER.exists():
        return gpt_oss_model()
    return MODEL_FOR.get(vec["parser"], "synthetic-multi")


@functools.cache
def output_parser(
    parser: str, model: str | None = None, reasoning: str | None = None, tool: bool = True
) -> tuple[ChatOutputParser, Any]:
    """The served pipeline: `--tool-call-parser parser` (unless `tool` is False) plus
    `--reasoning-parser reasoning` when given."""
    model = model or MODEL_FOR.get(parser, "synthetic-multi")
    tok = _tokenizer(model)
    options = ModelOptions(
        model=str(MODELS / model),
        tool_call_parser=parser if tool else None,
        reasoning_parser=reasoning,
        enable_auto_tool_choice=True,
    )
    built = _harmony_parser(options, tok) or build_output_parser(options, tok)
    assert built is not None
    return built, tok


def _harmony_parser(options: ModelOptions, tok: Any) -> ChatOutputParser | None:
    """The server's choice on a gpt-oss model dir (tokenization/registry.py)."""
    from tokenfront.parsers.harmony_output import harmony_parser_for

    config = Path(str(options.model)) / "config.json"
    model_type = json.loads(config.read_text()).get("model_type", "") if config.exists() else ""
    return harmony_parser_for(options, tok, model_type)


def request_context(vec: dict[str, Any]) -> ParseContext:
    """The request: the vector's tools, or (common suite, no tools) one per name it calls.

    `"tools": []` is a request that declares no tools."""
    tools = vec.get("tools")
    if tools is None:
        names = {c["name"] for c in vec["expected"].get("tool_calls") or [] if c.get("name")}
        names |= set(re.findall(r'"name":\s*"([A-Za-z_][\w.-]*)"', vec["model_output"]))
        # markup calls (`<invoke name="f">`, `<steptml:invoke name="f">`)
        names |= set(re.findall(r'invoke name=["\']?([A-Za-z_][\w.-]*)', vec["model_output"]))
        tools = [
            {"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
            for n in sorted(names or {"dummy_tool"})
        ]
    request = vec.get("request") or {}
    return ParseContext(
        tools=tools,
        tool_choice=request.get("tool_choice") or "auto",
        include_reasoning=request.get("include_reasoning", True),
        chat_template_kwargs=dict(request.get("chat_template_kwargs") or {}),
        enable_auto_tools=True,
        prompt_token_ids=_prompt_ids(vec),
        extra={
            "response_format": request.get("response_format"),
            "structured_outputs": request.get("structured_outputs"),
        },
    )


def _prompt_ids(vec: dict[str, Any]) -> list[int]:
    """`prompt_tail`: the end of the rendered prompt (text), for parsers that read the prompt."""
    tail = vec.get("prompt_tail")
    if not tail:
        return []
    return list(vector_parser(vec)[1].encode(tail, add_special_tokens=False))


Result = tuple[str | None, str | None, list[tuple[str | None, str | None]]]


def vector_parser(vec: dict[str, Any]) -> tuple[ChatOutputParser, Any]:
    """The vector's pipeline: a reasoning vector runs under `--reasoning-parser` alone; a tool
    vector under `--tool-call-parser`, plus `--reasoning-parser` when it names one
    (`reasoning_parser`: the vLLM test drove a combined reasoning + tool parser)."""
    if vec.get("kind", "tool") == "reasoning":
        return output_parser(vec["parser"], model_for(vec), vec["parser"], False)
    return output_parser(vec["parser"], model_for(vec), vec.get("reasoning_parser"))


def one_shot(vec: dict[str, Any]) -> Result:
    parser, tok = vector_parser(vec)
    text = vec["model_output"]
    message = parser.parse(text, tok.encode(text, add_special_tokens=False), request_context(vec))
    calls = [(c["function"]["name"], c["function"]["arguments"]) for c in message["tool_calls"]]
    return message["content"], message["reasoning"], calls


def single_call(vec: dict[str, Any]) -> Result:
    """A test's one direct streaming call: what that call's delta returns.

    `previous_text` is fed as one earlier chunk when it agrees with `current_text`; otherwise
    (a stateless-call artefact: vLLM's parser ignored it) the delta is the stream's first chunk.
    A test that swapped `current_text` and `delta_text` is read the way it means them.
    """
    parser, tok = vector_parser(vec)
    call = vec["single_call"]
    ctx = request_context(vec)
    state = None
    prev = call["previous_text"] or ""
    text = call["delta_text"]
    if (
        prev
        and prev + text != call["current_text"]
        and (prev + call["current_text"]).strip() == text.strip()
    ):
        # granite's "Continuing unexpected start reasoning sequence" swaps current_text and
        # delta_text (previous "Here wrong", delta " words"): the stream the test means
        text = call["current_text"]
    if prev and (prev + text == call["current_text"] or text == call["current_text"]):
        ids = tok.encode(prev, add_special_tokens=False)
        _, state = parser.stream(state, prev, ids, ctx, finished=False)
    ids = tok.encode(text, add_special_tokens=False)
    delta, _ = parser.stream(state, text, ids, ctx, finished=False)
    if delta is None:
        return None, None, []
    calls = [(tc.name, tc.arguments) for tc in delta.tool_calls or []]
    return delta.content or None, delta.reasoning or None, calls


def delta_ends(vec: dict[str, Any], tok: Any, ids: list[int]) -> list[int]:
    """Token offsets where each delta ends: one token per delta, or, for a vector marked
    `test_deltas_only` (what it asserts depends on the test's delta boundaries), the tokens
    grouped along its text `deltas` (`stream_intervals: [null]`: the whole output at once)."""
    if not vec.get("test_deltas_only"):
        return list(range(1, len(ids) + 1))
    if vec.get("stream_intervals") == [None] or not vec.get("deltas"):
        return [len(ids)] if ids else []
    bounds, at = [], 0
    for piece in vec["deltas"]:
        at += len(piece)
        bounds.append(at)
    ends = []
    for i in range(len(ids)):
        end = len(tok.decode(ids[: i + 1], skip_special_tokens=False))
        if i == len(ids) - 1 or (bounds and bounds[0] <= end):
            ends.append(i + 1)
            bounds = [b for b in bounds if b > end]
    return ends


def stream_pieces(
    pipeline: ChatOutputParser, tok: Any, pieces: list[str], ctx: ParseContext
) -> tuple[str, str]:
    """(content, reasoning) joined from streaming the text `pieces`, one chunk each (their
    tokens as the chunk's ids; the last chunk finishes the stream)."""
    state, content, reasoning = None, "", ""
    for i, piece in enumerate(pieces):
        ids = tok.encode(piece, add_special_tokens=False)
        delta, state = pipeline.stream(state, piece, ids, ctx, finished=i == len(pieces) - 1)
        if delta is not None:
            content += delta.content or ""
            reasoning += delta.reasoning or ""
    return content, reasoning


def streamed(vec: dict[str, Any], chunking: str = "1") -> Result:
    """The joined stream of `vec`'s output; `chunking` (see `chunk_ends`) groups the tokens
    of vectors whose assertion does not depend on the test's own deltas."""
    if "single_call" in vec:
        return single_call(vec)
    parser, tok = vector_parser(vec)
    ids = tok.encode(vec["model_output"], add_special_tokens=False)
    ctx = request_context(vec)
    state = None
    shown = ""
    content = reasoning = ""
    calls: dict[int, list[Any]] = {}
    start = 0
    if chunking == "1" or vec.get("test_deltas_only"):
        ends = delta_ends(vec, tok, ids)
    else:
        ends = chunk_ends(len(ids), chunking, seed=vec["source"])
    for end in ends:
        full = tok.decode(ids[:end], skip_special_tokens=False)
        piece = "" if full.endswith("\ufffd") else full[len(shown) :]
        if piece:
            shown = full
        delta, state = parser.stream(state, piece, ids[start:end], ctx, finished=end == len(ids))
        start = end
        if delta is None:
            continue
        content += delta.content or ""
        reasoning += delta.reasoning or ""
        for tc in delta.tool_calls or []:
            slot = calls.setdefault(tc.index, [None, ""])
            slot[0] = tc.name or slot[0]
            slot[1] += tc.arguments or ""
    return content or None, reasoning or None, [tuple(calls[k]) for k in sorted(calls)]


CHUNKINGS = ("2", "3", "5", "7", "mix15", "mix14", "all")


def chunk_ends(n: int, chunking: str, *, seed: str = "") -> list[int]:
    """Token offsets where each chunk of an `n`-token output ends, as an engine's generate
    stream may group tokens: `"k"` tokens per chunk, `"mix15"` a seeded random run of 1- and
    5-token chunks, `"mix14"` of 1- to 4-token chunks (the shapes of the shared corpus's
    streams), `"all"` the whole output in one chunk."""
    if n == 0:
        return []
    if chunking == "all":
        return [n]
    if chunking.startswith("mix"):
        rnd = random.Random(zlib.crc32(seed.encode()))
        sizes = [1, 5] if chunking == "mix15" else [1, 2, 3, 4]
        ends, at = [], 0
        while at < n:
            at = min(n, at + rnd.choice(sizes))
            ends.append(at)
        return ends
    k = int(chunking)
    return list(range(k, n, k)) + [n]


def modes(vec: dict[str, Any]) -> list[str]:
    return ["non_streaming", "streaming"] if vec["mode"] == "both" else [vec["mode"]]


def tool_parser_called(vec: dict[str, Any]) -> bool:
    """`tools_called` of the tool parser's own one-shot extraction (what vLLM's tests call)."""
    parser, tok = vector_parser(vec)
    if parser.tool_cls is None:
        return False
    tool = parser.tool_cls(tok, request_context(vec))
    return tool.extract_tool_calls(vec["model_output"]).tools_called


def problems(vec: dict[str, Any], mode: str, chunking: str = "1") -> list[str]:
    if mode == "non_streaming":
        content, reasoning, calls = one_shot(vec)
    else:
        content, reasoning, calls = streamed(vec, chunking)
    checked = dict(vec, mode=mode)
    called = bool(calls)
    if not called and mode == "non_streaming" and "tools_called" in vec.get("asserted", ()):
        called = tool_parser_called(vec)
    return check_result(
        checked, content=content, reasoning=reasoning, tool_calls=calls, tools_called=called
    )


def pinned_cases(
    parser: str, not_followed: dict[str, str] | None = None, *, source: str | None = None
) -> list[Any]:
    """pytest params (vector, mode) for every vector of `parser` in `<parser>.json` (or, when
    `source` is given, those of that vLLM test file in any of the parser's vector files) except
    `not_followed`: "<test id after the file path>" or "<test id>:<mode>" -> the reason
    tokenfront does not satisfy it (docs/deviations.md)."""
    from vllm_vectors_loader import load_vectors

    skip = not_followed or {}
    out = []
    for vec in load_vectors(parser, group=None if source is not None else ""):
        if source is not None and not vec["source"].startswith(source):
            continue
        name = vec["source"].split("::", 1)[1]
        for mode in modes(vec):
            if name not in skip and f"{name}:{mode}" not in skip:
                out.append(pytest.param(vec, mode, id=f"{name}:{vec['kind']}:{mode}"))
    return out


def source_cases(
    sources: dict[str, str], not_followed: dict[str, dict[str, str]] | None = None
) -> list[Any]:
    """`pinned_cases` of each parser -> vLLM test file in `sources`; `not_followed` per parser."""
    skip = not_followed or {}
    return [
        case
        for parser, source in sources.items()
        for case in pinned_cases(parser, skip.get(parser), source=source)
    ]


def cases(parser: str, sources: set[str], kind: str | None = "tool") -> list[Any]:
    """pytest params (vector, mode) for the vectors whose source test name is in `sources`."""
    from vllm_vectors_loader import load_vectors

    out = []
    for vec in load_vectors(parser, kind=kind):
        name = vec["source"].split("::")[-1]
        if name in sources:
            for mode in modes(vec):
                out.append(pytest.param(vec, mode, id=f"{vec['source']}:{mode}"))
    return out
