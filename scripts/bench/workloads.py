"""Request bodies for `make bench`, built on the built-in Qwen3 model (no ../shared needed).

The shapes follow the project's performance workloads: W1 plain chat derender (256 tokens),
W2 derender with reasoning + two hermes tool calls, W3 W1 with top-5 logprobs, W4 chat render
with tools and a tool round trip, W5 batched completion render (8 prompts), W6 batched
completion derender (8 x 128 tokens), W7/W7L W2's shape streamed in one-token chunks
(W7L with a longer reasoning part, 640 tokens) and W8 W2's shape with 4,096 output tokens.
Output text is fixed English tokenized segment by segment, so every run sends the same bytes.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MODEL = "qwen3"

PARAGRAPH = (
    "The rollout has three phases. First we copy every table into a fresh cluster and keep "
    "a snapshot so that a rollback never touches the live system. Then we replay the change "
    "log while both clusters serve reads, and compare row counts every few minutes. Finally "
    "we switch the connection strings behind a flag and watch the error rate for a day. "
    "Each stage is timed with a monotonic clock, the numbers are kept next to the code, and "
    "every comparison is run twice, interleaved, on the same machine with the same inputs. "
)
THOUGHT = (
    "The user wants the weather and a hotel. I should call the weather tool for the city "
    "first and then search hotels for the dates given, keeping the arguments exact. "
)

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": desc,
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "City name"},
                    "days": {"type": "integer", "description": "Number of days"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                },
                "required": ["city"],
            },
        },
    }
    for name, desc in (
        ("get_weather", "Current weather and a short forecast for a city."),
        ("search_hotels", "Hotels with free rooms in a city."),
        ("book_table", "Book a restaurant table."),
        ("convert_currency", "Convert an amount between currencies."),
    )
]
CALLS = [
    {"name": "get_weather", "arguments": {"city": "Lyon", "days": 3, "unit": "celsius"}},
    {"name": "search_hotels", "arguments": {"city": "Lyon", "days": 3}},
]
SYSTEM = {"role": "system", "content": "You are a helpful assistant. Use the tools."}
USER = {"role": "user", "content": "I am in Lyon for three days: weather, and a hotel please."}


@dataclass
class Workload:
    """One POST workload: its path, body bytes and what a good answer has."""

    wid: str
    name: str
    path: str
    body: bytes
    expect: dict[str, Any] = field(default_factory=dict)


@dataclass
class Stream:
    """A streamed derender: the fixed request part and the output ids sent one by one."""

    wid: str
    path: str
    base: dict[str, Any]
    token_ids: list[int]
    tool_names: list[str]


class Tok:
    """The built-in model's tokenizer through the `tokenizers` library (fast to load)."""

    def __init__(self, model_dir: Path) -> None:
        from tokenizers import Tokenizer

        self.tk = Tokenizer.from_file(str(model_dir / "tokenizer.json"))

    def ids(self, text: str) -> list[int]:
        return list(self.tk.encode(text, add_special_tokens=False).ids)

    def special(self, token: str) -> int:
        tid = self.tk.token_to_id(token)
        if tid is None:
            raise KeyError(token)
        return tid

    def repeat(self, text: str, count: int) -> list[int]:
        """Exactly `count` ids of `text` repeated."""
        ids: list[int] = []
        unit = self.ids(text)
        while len(ids) < count:
            ids.extend(unit)
        return ids[:count]


def _dump(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def _chat(tools: bool, thinking: bool, **extra: Any) -> dict[str, Any]:
    req: dict[str, Any] = {"model": MODEL, "messages": [SYSTEM, USER], "max_tokens": 8192}
    if tools:
        req["tools"] = TOOLS
        req["tool_choice"] = "auto"
    if not thinking:
        req["chat_template_kwargs"] = {"enable_thinking": False}
    req.update(extra)
    return req


def _parsed_ids(tok: Tok, reasoning_tokens: int) -> list[int]:
    ids = [tok.special("<think>"), *tok.repeat(THOUGHT, reasoning_tokens), tok.special("</think>")]
    ids += tok.ids("\n\n")
    for call in CALLS:
        ids.append(tok.special("<tool_call>"))
        ids += tok.ids("\n" + json.dumps(call) + "\n")
        ids.append(tok.special("</tool_call>"))
        ids += tok.ids("\n")
    return [*ids, tok.special("<|im_end|>")]


def _derender(request_id: str, ids: list[int], chat_request: dict[str, Any], **choice: Any) -> bytes:
    body = {
        "model": MODEL,
        "generate_response": {
            "request_id": request_id,
            "choices": [{"index": 0, "finish_reason": "stop", "token_ids": ids, **choice}],
        },
        "prompt_tokens": 40,
        "prompt_token_ids": list(range(1000, 1040)),
        "chat_request": chat_request,
    }
    return _dump(body)


def _logprobs(ids: list[int], rng: random.Random) -> dict[str, Any]:
    content = []
    for tid in ids:
        tops = [tid, *rng.sample(range(200, 100000), 4)]
        values = sorted((-rng.random() * 5 for _ in tops), reverse=True)
        entries = [
            {"token_id": t, "logprob": round(v, 6), "rank": r + 1}
            for r, (t, v) in enumerate(zip(tops, values, strict=True))
        ]
        content.append({**entries[0], "top_logprobs": entries})
    return {"content": content}


def build(model_dir: Path) -> tuple[list[Workload], list[Stream]]:
    tok = Tok(model_dir)
    end = tok.special("<|im_end|>")
    plain = [*tok.repeat(PARAGRAPH, 255), end]
    names = [c["name"] for c in CALLS]
    parsed_chat = _chat(tools=True, thinking=True)
    chat_path = "/v1/chat/completions/derender"
    loads = [
        Workload("W1", "derender-chat-plain", chat_path,
                 _derender("chatcmpl-w1", plain, _chat(False, False)), {"content": True}),
        Workload("W2", "derender-chat-parsed", chat_path,
                 _derender("chatcmpl-w2", _parsed_ids(tok, 200), parsed_chat),
                 {"tool_calls": names, "reasoning": True}),
        Workload("W3", "derender-chat-logprobs", chat_path,
                 _derender("chatcmpl-w3", plain, _chat(False, False, logprobs=True, top_logprobs=5),
                           logprobs=_logprobs(plain, random.Random(7))),
                 {"content": True, "logprobs": len(plain)}),
    ]
    call_turn = {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "get_weather", "arguments": json.dumps(CALLS[0]["arguments"])}}
        ],
    }
    messages = [SYSTEM, USER, call_turn,
                {"role": "tool", "tool_call_id": "call_1", "content": "Sunny, 24 C, light wind."},
                {"role": "assistant", "content": "It will be sunny. Shall I look for hotels?"},
                {"role": "user", "content": "Yes, three nights, near the old town. " + PARAGRAPH}]
    loads.append(Workload("W4", "render-chat", "/v1/chat/completions/render",
                          _dump({"model": MODEL, "messages": messages, "tools": TOOLS,
                                 "tool_choice": "auto", "max_tokens": 256}),
                          {"render": True}))
    sentences = [s.strip() + "." for s in PARAGRAPH.split(".") if s.strip()]
    prompts = [" ".join(sentences[i:] + sentences[:i]) * 2 for i in range(8)]
    loads.append(Workload("W5", "render-completion", "/v1/completions/render",
                          _dump({"model": MODEL, "prompt": prompts, "max_tokens": 128}),
                          {"render": 8}))
    loads.append(Workload("W6", "derender-completion", "/v1/completions/derender", _dump({
        "model": MODEL,
        "generate_responses": [
            {"request_id": f"cmpl-w6-{i}",
             "choices": [{"index": 0, "finish_reason": "length",
                          "token_ids": tok.repeat(sentences[i % len(sentences)] + " ", 128)}]}
            for i in range(8)
        ],
        "prompt_tokens": [len(tok.ids(p)) for p in prompts],
        "prompt_token_ids": [tok.ids(p) for p in prompts],
        "completion_request": {"model": MODEL, "prompt": prompts, "max_tokens": 128},
    }), {"completions": 8}))
    long_ids = _parsed_ids(tok, 4096 - len(_parsed_ids(tok, 0)))
    loads.append(Workload("W8", "long-output", chat_path,
                          _derender("chatcmpl-w8", long_ids, parsed_chat),
                          {"tool_calls": names, "reasoning": True}))
    base = {"stream": True, "model": MODEL, "prompt_tokens": 40,
            "prompt_token_ids": list(range(1000, 1040)), "chat_request": {**parsed_chat, "stream": True}}
    streams = [
        Stream("W7", chat_path, base, _parsed_ids(tok, 200), names),
        Stream("W7L", chat_path, base, _parsed_ids(tok, 640 - len(_parsed_ids(tok, 0))), names),
    ]
    return loads, streams


def check(w: Workload, status: int, data: bytes) -> str | None:
    """Why a response is wrong for `w`, or None when it looks right."""
    if status != 200:
        return f"HTTP {status}: {data[:200]!r}"
    body = json.loads(data)
    ex = w.expect
    if "render" in ex:
        items = body if isinstance(body, list) else [body]
        if ex["render"] is not True and len(items) != ex["render"]:
            return f"{len(items)} rendered prompts"
        if not all(item.get("token_ids") or item.get("prompt_token_ids") for item in items):
            return "render without token ids"
        return None
    if "completions" in ex:
        choices = [c for r in (body if isinstance(body, list) else [body]) for c in r.get("choices", [])]
        if len(choices) != ex["completions"] or not all(c.get("text") for c in choices):
            return "completion derender choices missing"
        return None
    msg = body["choices"][0]["message"]
    if ex.get("content") and not msg.get("content"):
        return "no content"
    if ex.get("reasoning") and not msg.get("reasoning"):
        return "no reasoning"
    if "tool_calls" in ex:
        got = [c["function"]["name"] for c in msg.get("tool_calls") or []]
        if got != ex["tool_calls"]:
            return f"tool calls {got}"
    if "logprobs" in ex:
        content = (body["choices"][0].get("logprobs") or {}).get("content") or []
        if len(content) != ex["logprobs"] - 1 and len(content) != ex["logprobs"]:
            return f"{len(content)} logprob entries"
    return None
