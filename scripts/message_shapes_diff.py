#!/usr/bin/env python3
"""Chat renders (and /tokenize) of random, often malformed message lists sent to a vLLM 0.33.0
render server and to tokenfront, answers compared.

Messages of every role with content as a string, a part list (text parts whose `text` is no
string, parts of other types, bare strings, parts without payload) or an object; tool calls,
`tool_call_id`, `name`, `reasoning` of odd types. Finds where vLLM's message schema union
(`tokenfront.protocol.message_schemas`) or its rendering of odd parts answers otherwise.

    python scripts/message_shapes_diff.py VLLM_URL TF_URL MODEL_NAME [--seed S] [-n N]
    python scripts/message_shapes_diff.py --configs ../shared/parity/configs.json \\
        --vllm-cmd '...' --tf-cmd '...' -n 200          # start both servers per config
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from render_diff import compare_drawn, url_or_sweep_main  # noqa: E402

ODD = [5, 1.5, True, None, [], ["a"], {"a": 1}, "", " x ", "<think>t</think>", {"type": "text", "text": "q"}]
TOOL = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}


def _text(rng: random.Random) -> Any:
    return rng.choice(["hello", "line1\nline2"] * 3 + ODD)


def _part(rng: random.Random) -> Any:
    r = rng.random()
    if r < 0.6:
        return {"type": "text", "text": _text(rng)}
    if r < 0.7:
        kind = rng.choice(["text", "input_text", "refusal", "thinking", "image_url", "weird"])
        return {"type": kind, "text": _text(rng)}
    if r < 0.8:
        return {"type": "text"}
    if r < 0.9:
        return rng.choice(["bare string", 3, None])
    return {"type": "refusal", "refusal": _text(rng)}


def _content(rng: random.Random) -> Any:
    r = rng.random()
    if r < 0.35:
        return _text(rng)
    if r < 0.9:
        return [_part(rng) for _ in range(rng.randint(0, 3))]
    return rng.choice([None, {}, {"type": "text", "text": "x"}])


def _tool_call(rng: random.Random) -> dict[str, Any]:
    call: dict[str, Any] = {
        "id": rng.choice(["call_1", "abcdefghi", 5, None]),
        "type": "function",
        "function": {
            "name": rng.choice(["get_weather", "", 5, None]),
            "arguments": rng.choice(['{"city": "Paris"}', "{}", "not json", {"city": "x"}, 5, None, "[1]"]),
        },
    }
    if rng.random() < 0.1:
        del call["function"]
    return call


def _message(rng: random.Random) -> dict[str, Any]:
    role = rng.choice(["system", "developer", "user", "user", "assistant", "tool"])
    msg: dict[str, Any] = {"role": role, "content": _content(rng)}
    if role == "assistant" and rng.random() < 0.4:
        msg["tool_calls"] = [_tool_call(rng) for _ in range(rng.randint(0, 2))]
        if rng.random() < 0.3:
            msg["content"] = None
    if role == "assistant" and rng.random() < 0.2:
        msg[rng.choice(["reasoning", "reasoning_content"])] = _text(rng)
    if role == "tool" and rng.random() < 0.8:
        msg["tool_call_id"] = rng.choice(["call_1", "abcdefghi", 5, None])
    if rng.random() < 0.1:
        msg["name"] = _text(rng)
    if rng.random() < 0.05:
        del msg["content"]
    return msg


def render_request(rng: random.Random, model: str) -> dict[str, Any]:
    messages = [_message(rng) for _ in range(rng.randint(1, 4))]
    if rng.random() < 0.7 and not any(m["role"] == "user" for m in messages):
        messages.append({"role": "user", "content": "hi"})
    body: dict[str, Any] = {"model": model, "messages": messages}
    if rng.random() < 0.3:
        body["tools"] = [TOOL]
    if rng.random() < 0.2:
        body["add_generation_prompt"] = False
        if rng.random() < 0.5:
            body["continue_final_message"] = True
    return body


def compare(vllm: str, tf: str, model: str, seed: int, n: int, config: str = "",
            record: Path | None = None, record_all: bool = False) -> int:
    def draw(rng: random.Random) -> tuple[str, dict[str, Any], str]:
        if rng.random() < 0.3:  # /tokenize's chat form validates messages without the chat
            return "/tokenize", render_request(rng, model), "tokenize"  # request's validators
        return "/v1/chat/completions/render", render_request(rng, model), "render-chat"

    return compare_drawn(vllm, tf, draw, seed, n, config, record, record_all, "msgshape", "message_shapes")


def main() -> int:
    return url_or_sweep_main(__doc__, compare, n=200, port=8593, logs="/tmp/message-shapes-logs")


if __name__ == "__main__":
    raise SystemExit(main())
