#!/usr/bin/env python3
"""Random OpenAI Responses requests sent to `/v1/responses/render` of a vLLM 0.33.0 render
server and of tokenfront, answers compared.

Requests are drawn (seeded) from the Responses API's shapes: string input, item lists with
messages of each role (string and part content: input_text / input_image / output_text),
function_call / function_call_output / custom tool items, reasoning items, unfinished
assistant messages, instructions, function / namespace / custom / hosted tools with every
tool_choice kind, text.format, reasoning.effort, sampling fields, include logprobs,
chat_template_kwargs, vLLM's extensions, previous_response_id and a few invalid values.
Answers are compared with the shared harness's rules (errors by status, type and code).

    python scripts/responses_diff.py VLLM_URL TF_URL MODEL_NAME [--seed S] [-n N]
    python scripts/responses_diff.py --only qwen3-hermes llama3-json --vllm-cmd '...' --tf-cmd '...'
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from render_diff import PHRASES, one_endpoint_compare, url_or_sweep_main  # noqa: E402

ENDPOINT = "/v1/responses/render"
WEATHER = {"type": "function", "name": "get_weather", "description": "Get the weather",
           "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}
TOOLS: list[dict[str, Any]] = [
    WEATHER,
    {"type": "function", "name": "search", "parameters": {"type": "object", "properties": {"query": {"type": "string"}}}},
    {"type": "function", "name": "book", "strict": True, "description": "Book seats",
     "parameters": {"type": "object", "properties": {"seats": {"type": "integer"}}, "required": ["seats"],
                    "additionalProperties": False}},
    {"type": "function", "name": "no_params"},
    {"type": "namespace", "name": "crm", "description": "CRM tools", "tools": [
        {"type": "function", "name": "lookup", "parameters": {"type": "object", "properties": {"id": {"type": "string"}}}},
        {"type": "function", "name": "search", "description": "CRM search"}]},
    {"type": "custom", "name": "run_sql", "description": "Run a SQL query"},
    {"type": "web_search"},
    {"type": "web_search_preview"},
]
# No URL images: a multimodal server would fetch them.
IMAGE = {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="}
EFFORTS = ["none", "minimal", "low", "medium", "high", "xhigh"]


def _text(rng: random.Random) -> str:
    return rng.choice(PHRASES)


def _parts(rng: random.Random, kind: str) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = [{"type": kind, "text": _text(rng)} for _ in range(rng.randint(1, 2))]
    if kind == "input_text" and rng.random() < 0.08:
        parts.append(dict(IMAGE))
    return parts


def _message(rng: random.Random, role: str) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": role}
    if role == "assistant" and rng.random() < 0.5:
        msg["content"] = _parts(rng, "output_text")
        if rng.random() < 0.3:
            msg["status"] = rng.choice(["completed", "incomplete", "in_progress"])
    elif rng.random() < 0.5:
        msg["content"] = _text(rng)
    else:
        msg["content"] = _parts(rng, "input_text" if role != "assistant" else "output_text")
    # Without the type an assistant part list is no input item (a 400): mostly typed.
    if rng.random() < (0.9 if role == "assistant" and isinstance(msg["content"], list) else 0.5):
        msg["type"] = "message"
    return msg


def _call(rng: random.Random, i: int) -> list[dict[str, Any]]:
    call_id = f"call_{i}{rng.randint(0, 99)}"
    if rng.random() < 0.15:
        call = {"type": "custom_tool_call", "call_id": call_id, "name": "run_sql", "input": "SELECT 1;"}
        out = {"type": "custom_tool_call_output", "call_id": call_id, "output": "1"}
    else:
        call = {"type": "function_call", "call_id": call_id, "name": rng.choice(["get_weather", "search", "lookup"]),
                "arguments": rng.choice(['{"city": "Paris"}', "{}", '{"query": "café"}'])}
        if call["name"] == "lookup" and rng.random() < 0.7:
            call["namespace"] = "crm"
        if rng.random() < 0.3:
            call["status"] = "completed"
        if rng.random() < 0.2:
            call["id"] = f"fc_{i}"
        out = {"type": "function_call_output", "call_id": call_id,
               "output": rng.choice(["sunny", "", '{"temp": 21}'] + ([[{"type": "input_text", "text": "22C"}]]))}
    return [call, out]


def _reasoning(rng: random.Random) -> dict[str, Any]:
    item: dict[str, Any] = {"type": "reasoning", "summary": []}
    r = rng.random()
    if r < 0.5:
        item["content"] = [{"type": "reasoning_text", "text": _text(rng)}]
    elif r < 0.8:
        item["summary"] = [{"type": "summary_text", "text": _text(rng)}]
    if rng.random() < 0.3:
        item["id"] = "rs_1"
    if rng.random() < 0.1:
        item["status"] = rng.choice(["in_progress", "completed"])
    return item


def _items(rng: random.Random) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    if rng.random() < 0.2:
        items.append(_message(rng, rng.choice(["system", "developer"])))
    for turn in range(rng.choice([1, 1, 2, 3])):
        items.append(_message(rng, "user"))
        if turn == 0 and rng.random() < 0.4:
            continue
        if rng.random() < 0.3:
            items.append(_reasoning(rng))
        for i in range(rng.choice([0, 0, 1, 2])):
            items.extend(_call(rng, i))
        if rng.random() < 0.6:
            items.append(_message(rng, "assistant"))
    if rng.random() < 0.15:
        last = _message(rng, "assistant")
        last["content"] = _parts(rng, "output_text")
        last["status"] = "incomplete"
        items.append(last)
    elif rng.random() < 0.05:
        items.append({**_reasoning(rng), "status": "in_progress"})
    return items


# vLLM's `previous_input_messages` (read on Harmony models only): chat- or Harmony-shaped.
PREVIOUS = [
    {"role": "user", "content": "Earlier question"},
    {"role": "assistant", "content": "Earlier answer"},
    {"role": "system", "content": "old instructions"},
    {"role": "assistant", "tool_calls": [{"id": "c0", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]},
    {"role": "tool", "name": "get_weather", "content": [{"type": "text", "text": "rain"}]},
    {"author": {"role": "assistant"}, "content": [{"type": "text", "text": "thinking"}], "channel": "analysis"},
    {"author": {"role": "assistant"}, "content": "done", "channel": "final"},
    {"author": {"role": "assistant"}, "content": "{}", "channel": "commentary", "recipient": "functions.search",
     "content_type": "<|constrain|>json"},
    {"author": {"role": "tool", "name": "functions.search"}, "content": "found", "channel": "commentary",
     "recipient": "assistant"},
]


def _tool_choice(rng: random.Random, tools: list[dict[str, Any]]) -> Any:
    r = rng.random()
    if r < 0.3:
        return rng.choice(["auto", "none", "required"])
    if r < 0.55:
        named = [t for t in tools if t["type"] in ("function", "custom")]
        if named:
            tool = rng.choice(named)
            return {"type": tool["type"], "name": tool["name"]}
        return {"type": "function", "name": "lookup"}
    if r < 0.65:
        return {"type": "function", "name": rng.choice(["lookup", "crm__lookup", "search"])}
    if r < 0.75:
        return {"type": "allowed_tools", "mode": rng.choice(["auto", "required"]),
                "tools": [{"type": "function", "name": "get_weather"}]}
    return None


def _invalid(rng: random.Random, body: dict[str, Any]) -> None:
    """One invalid value (or an edge that is valid in one server and maybe not the other)."""
    choice = rng.randrange(16)
    if choice == 0:
        body["max_output_tokens"] = rng.choice([0, -1, "x", 10**7])
    elif choice == 1:
        body.pop("input")
    elif choice == 2:
        body["input"] = rng.choice([[], 5, [{"type": "item_reference", "id": "msg_1"}], [{"role": "user"}],
                                    [{"type": "message", "role": "assistant", "content": [{"type": "refusal", "refusal": "no"}]}],
                                    [{"type": "reasoning", "summary": [], "encrypted_content": "xx"}],
                                    [{"type": "function_call", "name": "f"}]])
    elif choice == 3:
        body["tool_choice"] = rng.choice(["required", {"type": "function", "name": "missing"}, {"type": "function"}])
    elif choice == 4:
        body["tools"] = rng.choice([[{"type": "custom", "name": "g", "format": {"type": "grammar", "syntax": "lark", "definition": "x"}}],
                                    [{"type": "function"}], [{"type": "bogus"}], "x"])
    elif choice == 5:
        body["text"] = {"format": {"type": "json_schema", "name": "x", "schema": {"type": "object"}}}
        body["structured_outputs"] = {"regex": "[a-z]+"}
    elif choice == 6:
        body["prompt"] = {"id": "pmpt_1"}
    elif choice == 7:
        body["background"] = True
        body["store"] = False
    elif choice == 8:
        body["cache_salt"] = rng.choice(["", "a/b"])
    elif choice == 9:
        body["model"] = rng.choice(["", "unknown-model"])
    elif choice == 10:
        body["temperature"] = rng.choice([-1, 3])
    elif choice == 11:
        body["top_logprobs"] = rng.choice([-2, 30])
        body["include"] = ["message.output_text.logprobs"]
    elif choice == 12:
        body["chat_template_kwargs"] = {"chat_template": "{{ 'x' }}"}
    elif choice == 13:
        body["include"] = ["bogus"]
    elif choice == 14:
        body["stop"] = ["a", "b", "c", "d", "e"]
    else:
        body["reasoning"] = {"effort": "extreme"}


def responses_request(rng: random.Random, model: str) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model}
    body["input"] = _text(rng) if rng.random() < 0.3 else _items(rng)
    if rng.random() < 0.3:
        body["instructions"] = rng.choice([_text(rng), "Be brief.", ""])
    if rng.random() < 0.45:
        body["tools"] = rng.sample(TOOLS, rng.randint(1, 4))
        if rng.random() < 0.7 and (choice := _tool_choice(rng, body["tools"])) is not None:
            body["tool_choice"] = choice
        if rng.random() < 0.2:
            body["parallel_tool_calls"] = rng.choice([True, False])
    elif rng.random() < 0.1:
        body["tool_choice"] = rng.choice(["auto", "none"])
    if rng.random() < 0.2:
        body["text"] = {"format": rng.choice([
            {"type": "text"}, {"type": "json_object"},
            {"type": "json_schema", "name": "answer", "schema": {"type": "object", "properties": {"a": {"type": "integer"}}},
             "strict": True},
        ])}
    if rng.random() < 0.15:
        body["reasoning"] = {"effort": rng.choice(EFFORTS)}
    if rng.random() < 0.15:
        body["include"] = ["message.output_text.logprobs"]
        if rng.random() < 0.6:
            body["top_logprobs"] = rng.choice([0, 2, 5])
    for key, values in (
        ("max_output_tokens", [16, 256, 100000]), ("temperature", [0, 0.7, 1.0]), ("top_p", [0.9, 1]),
        ("top_k", [-1, 5]), ("min_p", [0.1]), ("repetition_penalty", [1.1]), ("presence_penalty", [0.5]),
        ("frequency_penalty", [-0.5]), ("seed", [7]), ("stop", ["###", ["END", "STOP"]]),
        ("stop_token_ids", [[1, 2]]), ("ignore_eos", [True]), ("skip_special_tokens", [False, True]),
        ("spaces_between_special_tokens", [False]), ("include_stop_str_in_output", [True]),
        ("logit_bias", [{"5": 1.0}]), ("stream", [True, False]), ("truncation", ["auto", "disabled"]),
        ("chat_template_kwargs", [{"enable_thinking": False}, {"enable_thinking": True}]),
        ("request_id", ["resp_fixed"]), ("cache_salt", ["salt"]), ("priority", [0]), ("watermarking", [True]),
        ("vllm_xargs", [{"k": 1}]), ("kv_transfer_params", [{"do_remote_decode": True}]),
        ("structured_outputs", [{"choice": ["yes", "no"]}]), ("metadata", [{"k": "v"}]), ("user", ["u"]),
        ("store", [False]), ("service_tier", ["auto"]), ("max_tool_calls", [2]), ("mm_payload", ["none"]),
        ("prompt_cache_key", ["k"]), ("prompt_cache_retention", ["in-memory", "24h"]), ("include_reasoning", [False]),
    ):
        if rng.random() < 0.06:
            body[key] = rng.choice(values)
    if rng.random() < 0.04:
        body["previous_response_id"] = "resp_123"
    if rng.random() < 0.08:
        body["previous_input_messages"] = rng.sample(PREVIOUS, rng.randint(1, 4))
        if rng.random() < 0.3:
            body["input"] = ""
    if rng.random() < 0.12:
        _invalid(rng, body)
    return body


compare = one_endpoint_compare(ENDPOINT, responses_request, "render-responses", "rsz", "responses_fuzz")


def main() -> int:
    return url_or_sweep_main(__doc__, compare, n=100, port=24010, logs="/tmp/responses-diff-logs")


if __name__ == "__main__":
    raise SystemExit(main())
