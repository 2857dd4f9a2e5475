#!/usr/bin/env python3
"""Random Anthropic Messages requests sent to `/v1/messages/render` of a vLLM 0.33.0 render
server and of tokenfront, answers compared.

Requests are drawn (seeded) from the Messages API's shapes: system prompts (string, blocks,
Claude Code's billing header), inline system turns, text / image / thinking / tool_use /
tool_result blocks, tools with tool_choice and tool_addition / tool_removal turns, thinking
and output_config, sampling fields and vLLM's extensions, with a few invalid values. Answers
are compared with the shared harness's rules (errors by status, type and code).

    python scripts/messages_diff.py VLLM_URL TF_URL MODEL_NAME [--seed S] [-n N]
    python scripts/messages_diff.py --only qwen3-hermes llama3-json --vllm-cmd '...' --tf-cmd '...'
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from render_diff import PHRASES, one_endpoint_compare, url_or_sweep_main  # noqa: E402

ENDPOINT = "/v1/messages/render"
TOOLS = [
    {"name": "get_weather", "description": "Get the weather",
     "input_schema": {"type": "object", "properties": {"city": {"type": "string"}},
                      "required": ["city"]}},
    {"name": "search", "input_schema": {"properties": {"query": {"type": "string"}}}},
    {"name": "get_time", "description": "Current time", "input_schema": {}, "strict": True},
    {"name": "lazy_tool", "input_schema": {"type": "object"}, "defer_loading": True},
]
BILLING = "x-anthropic-billing-header: cc_version=1.0; cch=abc123;"
# No URL sources: a multimodal server would fetch them.
IMAGE_SOURCES = [
    {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
    {"type": "base64", "data": "bm90IGFuIGltYWdl"},
]


def _text(rng: random.Random) -> str:
    return rng.choice(PHRASES)


def _text_blocks(rng: random.Random) -> list[dict[str, Any]]:
    blocks = [{"type": "text", "text": _text(rng)} for _ in range(rng.randint(1, 3))]
    if rng.random() < 0.3:
        blocks.insert(0, {"type": "text", "text": BILLING})
    return blocks


def _tool_result(rng: random.Random) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": rng.choice(["toolu_01", "call_9", ""])}
    r = rng.random()
    if r < 0.4:
        block["content"] = _text(rng)
    elif r < 0.8:
        items: list[Any] = [{"type": "text", "text": _text(rng)} for _ in range(rng.randint(0, 2))]
        if rng.random() < 0.3:
            items.append({"type": "tool_reference", "tool_name": "get_time"})
        if rng.random() < 0.1:
            items.append({"type": "image", "source": rng.choice(IMAGE_SOURCES)})
        if rng.random() < 0.1:
            items.append({"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}})
        block["content"] = items
    if rng.random() < 0.2:
        block["is_error"] = True
    return block


def _tool_use(rng: random.Random, i: int) -> dict[str, Any]:
    name = rng.choice(["get_weather", "search", "get_time"])
    args = rng.choice([{"city": "Paris"}, {"query": "naïve café"}, {}, {"n": [1, 2.5, None, True]}])
    # Always with an id: without one vLLM invents `call_<unix time>`, which a template printing
    # ids would render differently from one second to the next.
    return {"type": "tool_use", "id": f"toolu_0{i}", "name": name, "input": args}


def _user_blocks(rng: random.Random) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for _ in range(rng.randint(0, 3)):
        r = rng.random()
        if r < 0.45:
            blocks.append({"type": "text", "text": _text(rng)})
        elif r < 0.8:
            blocks.append(_tool_result(rng))
        elif r < 0.85:
            blocks.append({"type": "image", "source": rng.choice(IMAGE_SOURCES)})
        elif r < 0.9:
            blocks.append({"type": "text", "text": ""})
        else:
            blocks.append({"type": "tool_reference", "tool_name": "search"})
    return blocks


def _assistant_blocks(rng: random.Random) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if rng.random() < 0.4:
        blocks.append({"type": "thinking", "thinking": _text(rng), "signature": "sig"})
    if rng.random() < 0.1:
        blocks.append({"type": "redacted_thinking", "data": "b64=="})
    if rng.random() < 0.7:
        blocks.append({"type": "text", "text": _text(rng)})
    for i in range(rng.choice([0, 0, 1, 2])):
        blocks.append(_tool_use(rng, i))
    if rng.random() < 0.05:
        blocks.append(_tool_result(rng))
    return blocks


def _system_turn(rng: random.Random) -> dict[str, Any]:
    r = rng.random()
    if r < 0.3:
        return {"role": "system", "content": rng.choice([_text(rng), BILLING + " x", ""])}
    if r < 0.6:
        return {"role": "system", "content": _text_blocks(rng)}
    change: dict[str, Any]
    if rng.random() < 0.5:
        change = {"type": "tool_reference", "name": rng.choice(["lazy_tool", "search", "nope"])}
    else:
        change = {"type": "tool_definition", "definition": {
            "name": rng.choice(["added", "search"]), "input_schema": {"type": "object"}}}
    return {"role": "system", "content": [
        {"type": rng.choice(["tool_addition", "tool_addition", "tool_removal"]), "tool": change}]}


def _messages(rng: random.Random) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for turn in range(rng.choice([1, 1, 2, 3, 4, 5])):
        role = "user" if turn % 2 == 0 else "assistant"
        if rng.random() < 0.15:
            out.append(_system_turn(rng))
        if rng.random() < 0.45:
            out.append({"role": role, "content": _text(rng)})
        else:
            out.append({"role": role, "content": _user_blocks(rng) if role == "user" else _assistant_blocks(rng)})
    return out


def _invalid(rng: random.Random, body: dict[str, Any]) -> None:
    """One invalid value (or an edge that is valid in one server and maybe not the other)."""
    choice = rng.randrange(12)
    if choice == 0:
        body["max_tokens"] = rng.choice([0, -1, "x", None, 1.5])
    elif choice == 1:
        body.pop(rng.choice(["model", "messages", "max_tokens"]))
    elif choice == 2:
        body["messages"] = rng.choice([[], "hi", [{"role": "tool", "content": "x"}], [{"role": "user"}]])
    elif choice == 3:
        body["messages"].append({"role": "user", "content": [{"type": "video", "text": "x"}]})
    elif choice == 4:
        body["thinking"] = {"type": "enabled", "budget_tokens": rng.choice([10, body.get("max_tokens", 1) if isinstance(body.get("max_tokens"), int) else 5000, 100000])}
    elif choice == 5:
        body["tool_choice"] = rng.choice([{"type": "tool"}, {"type": "other"}, {"type": "tool", "name": "missing"}])
        body.setdefault("tools", TOOLS[:1])
    elif choice == 6:
        body["stop_sequences"] = ["a", "b", "c", "d", "e"]
    elif choice == 7:
        body["messages"].append({"role": "user", "content": [{"type": "tool_addition", "tool": {"type": "tool_reference", "name": "x"}}]})
    elif choice == 8:
        body["system"] = [{"type": "tool_removal", "tool": {"type": "tool_definition", "definition": TOOLS[0]}}]
    elif choice == 9:
        body["model"] = rng.choice(["", "unknown-model"])
    elif choice == 10:
        body["tools"] = rng.choice([[], [{"name": "x"}], [{"name": "x", "input_schema": "s"}]])
    else:
        body["cache_salt"] = ""


def messages_request(rng: random.Random, model: str) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "max_tokens": rng.choice([16, 256, 4096, 30000]),
                            "messages": _messages(rng)}
    r = rng.random()
    if r < 0.25:
        body["system"] = _text(rng)
    elif r < 0.5:
        body["system"] = _text_blocks(rng)
    if rng.random() < 0.4:
        body["tools"] = rng.sample(TOOLS, rng.randint(1, len(TOOLS)))
        if rng.random() < 0.6:
            kind = rng.choice(["auto", "any", "none", "tool"])
            choice: dict[str, Any] = {"type": kind}
            if kind == "tool":
                choice["name"] = body["tools"][0]["name"]
            if rng.random() < 0.3:
                choice["disable_parallel_tool_use"] = rng.random() < 0.5
            body["tool_choice"] = choice
    if rng.random() < 0.3:
        kind = rng.choice(["enabled", "disabled", "adaptive"])
        body["thinking"] = {"type": kind}
        if kind == "enabled":
            body["thinking"]["budget_tokens"] = 1024
            body["max_tokens"] = 4096
        elif kind == "adaptive" and rng.random() < 0.5:
            body["thinking"]["display"] = "omitted"
    if rng.random() < 0.2:
        config: dict[str, Any] = {}
        if rng.random() < 0.6:
            config["effort"] = rng.choice(["low", "medium", "high", "xhigh", "max"])
        if rng.random() < 0.5:
            config["format"] = {"type": "json_schema", "schema": {"type": "object", "properties": {"a": {"type": "integer"}}}}
        body["output_config"] = config
    for key, values in (
        ("temperature", [0, 0.7, 1.0]), ("top_p", [0.9, 1]), ("top_k", [-1, 5]),
        ("stop_sequences", [["\n\nHuman:"], [], ["END", "STOP"]]), ("stream", [True, False]),
        ("metadata", [{"user_id": "u1"}]), ("chat_template_kwargs", [{"enable_thinking": False}, {"enable_thinking": True}]),
        ("mm_payload", ["none"]), ("return_mm_kwargs", [False]), ("cache_salt", ["salt"]),
        ("watermarking", [True]), ("vllm_xargs", [{"k": 1}]), ("kv_transfer_params", [{"do_remote_decode": True}]),
    ):
        if rng.random() < 0.12:
            body[key] = rng.choice(values)
    if rng.random() < 0.12:
        _invalid(rng, body)
    return body


compare = one_endpoint_compare(ENDPOINT, messages_request, "render-messages", "mfz", "messages_fuzz")


def main() -> int:
    return url_or_sweep_main(__doc__, compare, n=100, port=8581, logs="/tmp/messages-diff-logs")


if __name__ == "__main__":
    raise SystemExit(main())
