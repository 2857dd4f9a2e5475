#!/usr/bin/env python3
"""Record `--tokenizer-mode mistral` golden cases from a running vLLM 0.33.0 render server.

Render (chat / completion), tokenize / detokenize and derender (one-shot, streams, logprobs,
special tokens) cases for the `mistral-mc` config, stored in the shared corpus format
(tests/golden/vllm-mistralmc.jsonl, configs in tests/golden/configs-mistralmc.json).

    VLLM_TARGET_DEVICE=cpu /work/vllm-venv/bin/vllm launch render --model ../shared/models/mistral \
        --served-model-name mistral --host 127.0.0.1 --port 8840 \
        --tool-call-parser mistral --enable-auto-tool-choice --tokenizer-mode mistral &
    python scripts/record_mistralmc_golden.py --url http://127.0.0.1:8840
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT.parent / "shared" / "parity"))
from paritylib import run_case  # noqa: E402

CONFIG = "mistral-mc"
MODEL = "mistral"
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"],
        },
    },
}
SEARCH = {
    "type": "function",
    "function": {
        "name": "search",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
    },
}
TOOLS = [WEATHER, SEARCH]
USER = {"role": "user", "content": "What's the weather in Paris?"}
CALL = {
    "id": "abcDEF123",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
}
HISTORY = [
    {"role": "system", "content": "You are terse."},
    USER,
    {"role": "assistant", "content": None, "tool_calls": [CALL]},
    {"role": "tool", "tool_call_id": "abcDEF123", "content": '{"temp": 21}'},
    {"role": "assistant", "content": "It is 21 degrees."},
    {"role": "user", "content": "And tomorrow? 東京も"},
]

CHAT: dict[str, dict[str, Any]] = {
    "plain": {"messages": [USER]},
    "system": {"messages": [{"role": "system", "content": "Be brief."}, USER]},
    "tools": {"messages": [USER], "tools": TOOLS},
    "tools_none": {"messages": [USER], "tools": TOOLS, "tool_choice": "none"},
    "tools_required": {"messages": [USER], "tools": TOOLS, "tool_choice": "required"},
    "tools_named": {
        "messages": [USER],
        "tools": TOOLS,
        "tool_choice": {"type": "function", "function": {"name": "search"}},
    },
    "history": {"messages": HISTORY, "tools": TOOLS},
    "history_no_tools": {"messages": HISTORY},
    "long_ids": {
        "messages": [
            USER,
            {
                "role": "assistant",
                "tool_calls": [{**CALL, "id": "call_0123456789abcdef"}],
            },
            {"role": "tool", "tool_call_id": "call_0123456789abcdef", "content": "sunny"},
        ],
        "tools": TOOLS,
    },
    "two_calls": {
        "messages": [
            USER,
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    CALL,
                    {
                        "id": "xyz987654",
                        "type": "function",
                        "function": {"name": "search", "arguments": '{"query": "x"}'},
                    },
                ],
            },
            {"role": "tool", "tool_call_id": "abcDEF123", "content": "sunny"},
            {"role": "tool", "tool_call_id": "xyz987654", "content": "result"},
        ],
        "tools": TOOLS,
    },
    "parts": {"messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}, {"type": "text", "text": "there"}]}]},
    "continue": {
        "messages": [USER, {"role": "assistant", "content": "It is"}],
        "continue_final_message": True,
        "add_generation_prompt": False,
    },
    "assistant_last": {"messages": [USER, {"role": "assistant", "content": "It is"}]},
    "no_gen_prompt": {"messages": [USER], "add_generation_prompt": False},
    "template_kwargs": {"messages": [USER], "chat_template_kwargs": {"x": 1}},
    "template": {"messages": [USER], "chat_template": "{{ messages }}"},
    "empty": {"messages": []},
    "system_only": {"messages": [{"role": "system", "content": "x"}]},
    "two_users": {"messages": [USER, USER]},
    "bad_args": {
        "messages": [
            USER,
            {
                "role": "assistant",
                "tool_calls": [{**CALL, "function": {"name": "get_weather", "arguments": "{bad"}}],
            },
        ],
    },
    "tool_no_id": {"messages": [USER, {"role": "tool", "content": "x"}]},
    "specials_text": {"messages": [{"role": "user", "content": "[INST] hi [/INST] <s>"}]},
    "reasoning_effort": {"messages": [USER], "reasoning_effort": "high"},
    "max_tokens": {"messages": [USER], "max_tokens": 7, "temperature": 0.5},
    "name_field": {"messages": [{"role": "user", "content": "hi", "name": "bob"}]},
    "content_and_calls": {
        "messages": [
            USER,
            {"role": "assistant", "content": "Checking.", "tool_calls": [CALL]},
            {"role": "tool", "tool_call_id": "abcDEF123", "content": [{"type": "text", "text": "sunny"}]},
        ],
        "tools": TOOLS,
    },
    "system_middle": {
        "messages": [USER, {"role": "assistant", "content": "ok"},
                     {"role": "system", "content": "Now be formal."}, USER],
    },
    "developer": {"messages": [{"role": "developer", "content": "Be brief."}, USER]},
    "image": {
        "messages": [{"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]}],
    },
    "truncate": {"messages": [USER], "truncate_prompt_tokens": 5},
    "too_many_tokens": {"messages": [USER], "max_tokens": 10**6},
    "auto_no_tools": {"messages": [USER], "tool_choice": "auto"},
    "required_json": {
        "messages": [USER], "tools": TOOLS, "tool_choice": "required",
        "response_format": {"type": "json_object"},
    },
    "emoji_tail": {"messages": [{"role": "user", "content": "Smile 🙂"}]},
    "effort_bad": {"messages": [USER], "reasoning_effort": "minimal"},
    "tool_unknown_id": {
        "messages": [USER, {"role": "assistant", "tool_calls": [CALL]},
                     {"role": "tool", "tool_call_id": "zzzzzzzzz", "content": "x"}],
        "tools": TOOLS,
    },
    "bad_call_id": {
        "messages": [USER, {"role": "assistant", "tool_calls": [{**CALL, "id": "a-b"}]},
                     {"role": "tool", "tool_call_id": "a-b", "content": "x"}],
        "tools": TOOLS,
    },
    "stream_opts": {"messages": [USER], "stream": True, "stream_options": {"include_usage": True}},
}

COMPLETION: dict[str, dict[str, Any]] = {
    "text": {"prompt": "Hello world, 東京"},
    "specials": {"prompt": "[INST] hi [/INST]"},
    "ids": {"prompt": [1, 3, 1091, 4]},
    "echo": {"prompt": "Hi", "echo": True, "max_tokens": 3},
    "truncate": {"prompt": "one two three four five six", "truncate_prompt_tokens": 3},
    "no_special": {"prompt": "Hi", "add_special_tokens": False},
    "emoji": {"prompt": "🙂🙂"},
}

TOKENIZE: dict[str, dict[str, Any]] = {
    "text": {"prompt": "Hello world, 東京 🙂"},
    "text_strs": {"prompt": "Hello world, 東京 🙂", "return_token_strs": True},
    "no_special": {"prompt": "[INST] hi", "add_special_tokens": False},
    "chat": {"messages": [USER]},
    "chat_tools": {"messages": HISTORY, "tools": TOOLS, "return_token_strs": True},
    "chat_kwargs": {"messages": [USER], "chat_template_kwargs": {"x": 1}},
    "chat_no_gen": {"messages": [USER], "add_generation_prompt": False},
    "chat_specials": {"messages": [USER], "add_special_tokens": True},
    "chat_continue": {
        "messages": [USER, {"role": "assistant", "content": "It"}],
        "continue_final_message": True, "add_generation_prompt": False,
    },
    "chat_tool_result": {"messages": [USER, {"role": "tool", "tool_call_id": "abcDEF123", "content": "x"}]},
    "chat_template": {"messages": [USER], "chat_template": "{{ x }}"},
    "chat_empty": {"messages": []},
    "emoji_strs": {"prompt": "a🙂b 東", "return_token_strs": True, "add_special_tokens": False},
}

DETOKENIZE: dict[str, list[int]] = {
    "specials": [1, 3, 1091, 4, 9, 2],
    "plain": [29706, 4304],
    "out_of_range": [29706, 131072, 200000],
    "bytes": [1153, 1130, 1033],
    "half_bytes": [1153, 29706],
    "think_like": [9, 17, 18, 19, 999],
}

# Output texts for derender (encoded with the model's tokenizer, specials as ids).
OUTPUTS: dict[str, list[int | str]] = {
    "text": ["Hello there, 東京 is sunny 🙂 today."],
    "tool": [9, '[{"name": "get_weather", "arguments": {"city": "東京"}}]'],
    "tool_eos": [9, '[{"name": "search", "arguments": {"query": "x"}}, {"name": "get_weather", "arguments": {"city": "Rome", "days": 2}}]', 2],
    "specials": ["A", 3, "B", 4, 1, "C ", 17, "D"],
    "text_then_tool": ["Let me check. ", 9, '[{"name": "get_weather", "arguments": {"city": "Paris"}}]'],
    "bytes_specials": ["x", 1153, 3, 1130, " y 🙂", 2, "z"],
    "bad_json": [9, '[{"name": "get_weather", "arguments": {"city": }}]'],
    "single_obj": [9, '{"name": "search", "arguments": {"query": "q"}}'],
}


def encode_output(tokenizer: Any, parts: list[int | str]) -> list[int]:
    ids: list[int] = []
    for part in parts:
        if isinstance(part, int):
            ids.append(part)
        else:
            ids.extend(tokenizer.encode(part, bos=False, eos=False))
    return ids


def case(cid: str, family: str, endpoint: str, request: Any, method: str = "POST") -> dict:
    return {
        "id": f"tf-mistralmc-{cid}",
        "family": family,
        "config": CONFIG,
        "endpoint": endpoint,
        "method": method,
        "request": request,
    }


def logprobs_of(ids: list[int]) -> dict:
    return {
        "content": [
            {
                "token_id": t,
                "logprob": -0.5,
                "rank": 1,
                "top_logprobs": [{"token_id": t, "logprob": -0.5, "rank": 1}],
            }
            for t in ids
        ]
    }


def derender_cases(client: httpx.Client, url: str, tokenizer: Any) -> list[dict]:
    out: list[dict] = []
    variants: dict[str, dict[str, Any]] = {
        "auto": {"messages": [USER], "tools": TOOLS},
        "notools": {"messages": [USER]},
        "skip_false": {"messages": [USER], "skip_special_tokens": False},
        "skip_true": {"messages": [USER], "skip_special_tokens": True, "tools": TOOLS, "tool_choice": "none"},
        "logprobs": {"messages": [USER], "logprobs": True, "top_logprobs": 1, "tools": TOOLS},
        "emoji_prompt": {"messages": [{"role": "user", "content": "Smile 🙂"}], "skip_special_tokens": True, "tools": TOOLS, "tool_choice": "none"},
        "skipfalse_logprobs": {"messages": [USER], "skip_special_tokens": False, "logprobs": True, "top_logprobs": 1},
        "required": {"messages": [USER], "tools": TOOLS, "tool_choice": "required"},
    }
    for vname, chat_req in variants.items():
        chat_req = {"model": MODEL, **chat_req}
        render = client.post(url + "/v1/chat/completions/render", json=chat_req).json()
        prompt_ids = render["token_ids"]
        for oname, parts in OUTPUTS.items():
            ids = encode_output(tokenizer, parts)
            choice: dict[str, Any] = {"index": 0, "token_ids": ids, "finish_reason": "stop", "stop_reason": None}
            if chat_req.get("logprobs"):
                choice["logprobs"] = logprobs_of(ids)
            base = {
                "model": MODEL,
                "chat_request": chat_req,
                "prompt_tokens": len(prompt_ids),
                "prompt_token_ids": prompt_ids,
            }
            out.append(case(f"derender-{vname}-{oname}", "derender-chat",
                            "/v1/chat/completions/derender",
                            {**base, "generate_response": {"request_id": f"gen-{vname}-{oname}", "choices": [choice]}}))
            chunks = []
            for i, t in enumerate(ids):
                c: dict[str, Any] = {"index": 0, "token_ids": [t]}
                if chat_req.get("logprobs"):
                    c["logprobs"] = logprobs_of([t])
                if i == len(ids) - 1:
                    c["finish_reason"] = "stop"
                chunks.append({"request_id": "gen-stream", "choices": [c]})
            out.append(case(f"stream-{vname}-{oname}", "stream", "/v1/chat/completions/derender",
                            {"kind": "stream", "base": base, "chunks": chunks}))
            triples = []
            for i in range(0, len(ids), 3):
                part = ids[i : i + 3]
                c3: dict[str, Any] = {"index": 0, "token_ids": part}
                if chat_req.get("logprobs"):
                    c3["logprobs"] = logprobs_of(part)
                if i + 3 >= len(ids):
                    c3["finish_reason"] = "stop"
                triples.append({"request_id": "gen-stream", "choices": [c3]})
            out.append(case(f"stream3-{vname}-{oname}", "stream", "/v1/chat/completions/derender",
                            {"kind": "stream", "base": base, "chunks": triples}))
    for oname, parts in OUTPUTS.items():
        ids = encode_output(tokenizer, parts)
        out.append(case(f"derender-completion-{oname}", "derender-completion", "/v1/completions/derender", {
            "model": MODEL,
            "prompt_tokens": [1, 29706],
            "generate_responses": [{"request_id": f"gen-c-{oname}", "choices": [
                {"index": 0, "token_ids": ids, "finish_reason": "length", "stop_reason": None,
                 "logprobs": logprobs_of(ids)}]}],
            "logprobs": 1,
        }))
    return out


def all_cases(client: httpx.Client, url: str, tokenizer: Any) -> list[dict]:
    cases: list[dict] = []
    for name, req in CHAT.items():
        cases.append(case(f"render-chat-{name}", "render-chat", "/v1/chat/completions/render",
                          {"model": MODEL, **req}))
    for name, req in COMPLETION.items():
        cases.append(case(f"render-completion-{name}", "render-completion",
                          "/v1/completions/render", {"model": MODEL, **req}))
    for name, req in TOKENIZE.items():
        cases.append(case(f"tokenize-{name}", "tokenize", "/tokenize", {"model": MODEL, **req}))
    for name, ids in DETOKENIZE.items():
        cases.append(case(f"detokenize-{name}", "tokenize", "/detokenize", {"model": MODEL, "tokens": ids}))
    cases.extend(derender_cases(client, url, tokenizer))
    return cases


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", default="http://127.0.0.1:8840")
    ap.add_argument("--out", default=str(ROOT / "tests/golden/vllm-mistralmc.jsonl"))
    ap.add_argument("--model-dir", default=str(ROOT.parent / "shared/models/mistral"))
    args = ap.parse_args()
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer

    tokenizer = MistralTokenizer.from_file(str(Path(args.model_dir) / "tekken.json"))
    raw = tokenizer.instruct_tokenizer.tokenizer
    with httpx.Client(timeout=60) as client:
        cases = all_cases(client, args.url, raw)
        with open(args.out, "w", encoding="utf-8") as f:
            for c in cases:
                got = run_case(client, args.url, c)
                if isinstance(got["status"], int) and (got["status"] >= 500 or got["status"] < 0):
                    # vLLM crashes or drops the connection (e.g. /detokenize of lone UTF-8
                    # byte tokens); tokenfront answers a 400 / 200 instead: not a parity fact.
                    print(f"skipped {c['id']}: vLLM answered {got['status']}")
                    continue
                f.write(json.dumps({**c, **got}, ensure_ascii=False) + "\n")
    print(f"wrote {len(cases)} cases to {args.out}")


if __name__ == "__main__":
    main()
