import json
import os
import random
import sys
from pathlib import Path

sys.path.insert(
    0,
    os.environ.get(
        "TOKENFRONT_PARITY", str(Path(__file__).resolve().parents[3] / "shared" / "parity")
    ),
)
import httpx
import paritylib

RECORD = os.environ.get("RECORD")
CONFIG = os.environ.get("CONFIG", "")
rec = open(RECORD, "a") if RECORD else None
A, B, SEED, N = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
client = httpx.Client(timeout=120)
rng = random.Random(SEED)
CH = "/v1/chat/completions/derender"


def tok(text):
    return client.post(
        A + "/tokenize", json={"model": "qwen3", "prompt": text, "add_special_tokens": False}
    ).json()["tokens"]


TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "search",
            "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
        },
    },
]
U = [{"role": "user", "content": "weather?"}]
pieces = {
    "think": tok("<think>\nReasoning about 東京 🍂 here.\n</think>\n\n"),
    "text": tok("The answer is 42 ✓."),
    "call1": tok(
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    ),
    "call2": tok(
        '<tool_call>\n{"name": "search", "arguments": {"q": "a \\"quoted\\" 東"}}\n</tool_call>'
    ),
    "bad": tok('<tool_call>\n{"name": "get_weather", "arguments": {"city": \n</tool_call>'),
}
prompts = {}
for think in (True, False):
    prompts[think] = client.post(
        A + "/v1/chat/completions/render",
        json={
            "model": "qwen3",
            "messages": U,
            "tools": TOOLS,
            "chat_template_kwargs": {"enable_thinking": think},
        },
    ).json()["token_ids"]
good = total = 0
for k in range(N):
    seq = []
    if rng.random() < 0.6:
        seq += pieces["think"]
    for _ in range(rng.randint(0, 3)):
        seq += pieces[rng.choice(["text", "call1", "call2", "text", "bad"])]
    if not seq:
        seq = pieces["text"]
    finish = "stop"
    if rng.random() < 0.7:
        seq = seq + [151645]
    elif rng.random() < 0.5:
        seq = seq[: rng.randint(1, len(seq))]
        finish = "length"
    thinking = rng.random() < 0.7
    cr = {
        "messages": U,
        "tools": TOOLS,
        "tool_choice": rng.choice(
            [
                "auto",
                "auto",
                "none",
                "required",
                {"type": "function", "function": {"name": "get_weather"}},
            ]
        ),
    }
    if not thinking:
        cr["chat_template_kwargs"] = {"enable_thinking": False}
    if rng.random() < 0.2:
        cr["include_reasoning"] = False
    if rng.random() < 0.2:
        cr["parallel_tool_calls"] = False
    if rng.random() < 0.2:
        cr["return_token_ids"] = True
    if rng.random() < 0.2:
        cr["skip_special_tokens"] = False
    base = {
        "chat_request": cr,
        "prompt_token_ids": prompts[thinking],
        "prompt_tokens": len(prompts[thinking]),
    }
    if rng.random() < 0.4:
        body = {
            "generate_response": {
                "request_id": "r",
                "choices": [{"index": 0, "token_ids": seq, "finish_reason": finish}],
                "prompt_token_ids": prompts[thinking],
            },
            **base,
        }
        case = {"id": k, "endpoint": CH, "method": "POST", "request": body}
    else:
        chunks = []
        i = 0
        while i < len(seq):
            n = rng.choice([1, 1, 2, 3, 5])
            part = seq[i : i + n]
            i += n
            c = {"index": 0, "token_ids": part}
            if i >= len(seq):
                c["finish_reason"] = finish
            chunks.append({"request_id": "g", "choices": [c]})
        if rng.random() < 0.3:
            chunks.append(
                {
                    "request_id": "g",
                    "choices": [],
                    "usage": {"prompt_tokens": 3, "completion_tokens": len(seq)},
                }
            )
        case = {
            "id": k,
            "endpoint": CH,
            "method": "POST",
            "request": {"kind": "stream", "base": base, "chunks": chunks},
        }
    ra = paritylib.run_case(client, A, case)
    rb = paritylib.run_case(client, B, case)
    if rec is not None:
        fam = (
            "stream"
            if case["request"].get("kind") == "stream"
            else ("derender-chat" if "chat" in case["endpoint"] else "derender-completion")
        )
        rec.write(
            json.dumps(
                {
                    "id": f"derender-{CONFIG}-{os.path.basename(__file__)[:-3]}-{case['id']}",
                    "family": fam,
                    "config": CONFIG,
                    "endpoint": case["endpoint"],
                    "method": "POST",
                    "request": case["request"],
                    "status": ra["status"],
                    "response": ra["response"],
                },
                ensure_ascii=False,
            )
            + "\n"
        )
    diffs = paritylib.compare_result(
        case, {"status": ra["status"], "response": ra["response"], "endpoint": CH}, rb
    )
    total += 1
    if diffs:
        print("DIFF", k, str(ra["status"])[:40], str(rb["status"])[:40], diffs[:4])
        print("  CR", json.dumps(cr)[:300], "stream" if "kind" in case["request"] else "ns", finish)
    else:
        good += 1
print("same", good, "of", total)
