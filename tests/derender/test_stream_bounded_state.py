"""A 4,096-token stream with parsers, one token per chunk: the carried state stays bounded.

vLLM's stream state carries every output token (O(n) bytes per chunk); tokenfront's carries a
bounded detokenizer window and the parsers' grammar state, whatever the output length.
"""

from __future__ import annotations

import dataclasses
import json

from tokenfront.config import ServerSettings
from tokenfront.derender.state import StateCodec
from tokenfront.derender.stream import derender_chat_chunk
from tokenfront.parsers.pipeline import build_output_parser
from tokenfront.protocol.generate import DerenderChatStreamRequest

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]


def _with_parsers(model, tool_parser: str = "hermes"):
    options = dataclasses.replace(
        model.options,
        tool_call_parser=tool_parser,
        reasoning_parser="qwen3",
        enable_auto_tool_choice=True,
    )
    return dataclasses.replace(
        model, options=options, parser=build_output_parser(options, model.tokenizer)
    )


def _output_ids(model, total: int) -> list[int]:
    tok = model.tokenizer
    head = tok.encode("<think>\n", add_special_tokens=False)
    tail = tok.encode(
        '</think>\n\nChecking.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
        add_special_tokens=False,
    )
    filler = tok.encode(" the weather in Paris is mild today and", add_special_tokens=False)
    middle: list[int] = []
    while len(head) + len(middle) + len(tail) + 1 < total:
        middle.extend(filler)
    middle = middle[: total - len(head) - len(tail) - 1]
    return head + middle + tail + [tok.convert_tokens_to_ids("<|im_end|>")]


def _stream_sizes(model, ids: list[int], chat_request: dict) -> tuple[dict[int, int], list[dict]]:
    """Stream `ids` one token per chunk; the state size after each chunk and the deltas."""
    settings = ServerSettings(stream_state_key=["k"])
    codec = StateCodec(["k"])
    prompt_ids = model.tokenizer.apply_chat_template(
        chat_request["messages"],
        tools=TOOLS,
        add_generation_prompt=True,
        tokenize=True,
        **chat_request.get("chat_template_kwargs", {}),
    )
    if not isinstance(prompt_ids, list):  # a BatchEncoding
        prompt_ids = prompt_ids["input_ids"]
    state = None
    sizes: dict[int, int] = {}
    choices: list[dict] = []
    for i, tid in enumerate(ids):
        choice = {"index": 0, "token_ids": [tid]}
        if i == len(ids) - 1:
            choice["finish_reason"] = "stop"
        body = {
            "stream": True,
            "model": "qwen3",
            "chat_request": chat_request,
            "prompt_token_ids": list(prompt_ids),
            "generate_chunk": {"request_id": "r", "choices": [choice]},
            "stream_state": state,
        }
        result = derender_chat_chunk(
            model, DerenderChatStreamRequest.model_validate(body), settings, codec
        )
        state = result["stream_state"]
        sizes[i + 1] = len(state)
        choices.extend(result["chunk"]["choices"])
    return sizes, choices


def test_state_size_stays_flat_over_4096_one_token_chunks(qwen3) -> None:
    model = _with_parsers(qwen3)
    chat_request = {
        "model": "qwen3",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": TOOLS,
    }
    ids = _output_ids(model, 4096)
    assert len(ids) == 4096
    sizes, choices = _stream_sizes(model, ids, chat_request)

    reasoning: list[str] = []
    tool_names: list[str] = []
    finish = None
    for ch in choices:
        delta = ch.get("delta") or {}
        if delta.get("reasoning"):
            reasoning.append(delta["reasoning"])
        for call in delta.get("tool_calls") or ():
            name = (call.get("function") or {}).get("name")
            if name:
                tool_names.append(name)
        finish = ch.get("finish_reason") or finish

    # The stream really went through both parsers.
    assert "".join(reasoning).count("mild today") > 100
    assert tool_names == ["get_weather"]
    assert finish == "tool_calls"
    # State at chunk 4,000 is within 2x of chunk 10 (vLLM's grows by every token).
    assert sizes[4000] <= 2 * sizes[10], (sizes[10], sizes[4000])
    assert max(sizes.values()) < 4096


def test_required_tool_choice_state_stays_flat_over_4096_one_token_chunks(qwen3) -> None:
    """tool_choice "required": the output is a JSON array of calls, scanned incrementally
    (pythonic: a parser that leaves required calls to the shared array scanner)."""
    model = _with_parsers(qwen3, "pythonic")
    tok = model.tokenizer
    chat_request = {
        "model": "qwen3",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": TOOLS,
        "tool_choice": "required",
        "chat_template_kwargs": {"enable_thinking": False},
    }
    head = tok.encode('[{"name": "get_weather", "parameters": {"city": "', add_special_tokens=False)
    tail = tok.encode('"}}]', add_special_tokens=False)
    filler = tok.encode("Paris is mild ", add_special_tokens=False)
    middle: list[int] = []
    while len(head) + len(middle) + len(tail) + 1 < 4096:
        middle.extend(filler)
    middle = middle[: 4096 - len(head) - len(tail) - 1]
    ids = head + middle + tail + [tok.convert_tokens_to_ids("<|im_end|>")]
    sizes, choices = _stream_sizes(model, ids, chat_request)

    names = [
        c["function"]["name"]
        for ch in choices
        for c in (ch.get("delta") or {}).get("tool_calls") or ()
        if (c.get("function") or {}).get("name")
    ]
    arguments = "".join(
        (c.get("function") or {}).get("arguments") or ""
        for ch in choices
        for c in (ch.get("delta") or {}).get("tool_calls") or ()
    )
    assert names == ["get_weather"]
    assert json.loads(arguments)["city"].count("Paris is mild") > 500
    assert sizes[4000] <= 2 * sizes[10], (sizes[10], sizes[4000])
