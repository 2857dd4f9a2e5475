import json
import os
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
A, B = sys.argv[1], sys.argv[2]
CH = "/v1/chat/completions/derender"
client = httpx.Client(timeout=120)


def tok(text):
    r = client.post(
        A + "/tokenize", json={"model": "qwen3", "prompt": text, "add_special_tokens": False}
    )
    return r.json()["tokens"]


U = [{"role": "user", "content": "weather?"}]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]
render = client.post(
    A + "/v1/chat/completions/render", json={"model": "qwen3", "messages": U, "tools": TOOLS}
).json()
prompt = render["token_ids"]
think = tok("<think>\nLet me think.\n</think>\n\nSure.")
call = tok('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>')
EOS = 151645
cases = []


def add(name, body):
    cases.append((name, body))


def stream(name, base, chunks, initial=None):
    cases.append(
        (
            name,
            {
                "kind": "stream",
                "base": base,
                "chunks": chunks,
                **({"initial_state": initial} if initial is not None else {}),
            },
        )
    )


def one_tok(ids, finish="stop", extra_final=None):
    ch = [{"request_id": "g", "choices": [{"index": 0, "token_ids": [t]}]} for t in ids]
    ch[-1]["choices"][0]["finish_reason"] = finish
    if extra_final:
        ch.append(extra_final)
    return ch


cr = {"messages": U, "tools": TOOLS, "tool_choice": "auto"}
base = {"chat_request": cr, "prompt_token_ids": prompt}
ids = think + call + [EOS]
add("ns_tool", {"generate_response": {"choices": [{"index": 0, "token_ids": ids}]}, **base})
add(
    "ns_tool_length",
    {
        "generate_response": {
            "choices": [{"index": 0, "token_ids": ids[:-3], "finish_reason": "length"}]
        },
        **base,
    },
)
add(
    "ns_hide",
    {
        "generate_response": {
            "choices": [
                {
                    "index": 0,
                    "token_ids": ids,
                    "logprobs": {"content": [{"token_id": t, "logprob": -1} for t in ids]},
                }
            ]
        },
        **base,
        "chat_request": {
            **cr,
            "include_reasoning": False,
            "return_token_ids": True,
            "logprobs": True,
        },
    },
)
add(
    "ns_none",
    {
        "generate_response": {"choices": [{"index": 0, "token_ids": ids}]},
        **base,
        "chat_request": {**cr, "tool_choice": "none"},
    },
)
add(
    "ns_required",
    {
        "generate_response": {
            "choices": [
                {
                    "index": 0,
                    "token_ids": tok('[{"name": "get_weather", "parameters": {"city": "X"}}]')
                    + [EOS],
                }
            ]
        },
        **base,
        "chat_request": {**cr, "tool_choice": "required"},
    },
)
add(
    "ns_no_prompt",
    {"generate_response": {"choices": [{"index": 0, "token_ids": ids}]}, "chat_request": cr},
)
stream(
    "s_tool",
    base,
    one_tok(
        ids,
        extra_final={
            "request_id": "g",
            "choices": [],
            "usage": {"prompt_tokens": 5, "completion_tokens": 9},
        },
    ),
)
stream(
    "s_tool_chunks3",
    base,
    [
        {
            "choices": [
                {
                    "index": 0,
                    "token_ids": ids[i : i + 3],
                    **({"finish_reason": "stop"} if i + 3 >= len(ids) else {}),
                }
            ]
        }
        for i in range(0, len(ids), 3)
    ],
)
stream(
    "s_after_finish",
    base,
    one_tok(ids)
    + [
        {"choices": [{"index": 0, "token_ids": tok(" more")}]},
        {"choices": [{"index": 0, "token_ids": [], "finish_reason": "stop"}]},
    ],
)
stream(
    "s_empty_finish", base, [{"choices": [{"index": 0, "token_ids": [], "finish_reason": "stop"}]}]
)
stream("s_empty_first", base, [{"choices": [{"index": 0, "token_ids": []}]}] + one_tok(ids))
stream(
    "s_hide",
    {**base, "chat_request": {**cr, "include_reasoning": False, "return_token_ids": True}},
    one_tok(ids),
)
stream(
    "s_vllm_state",
    base,
    [{"choices": [{"index": 0, "token_ids": ids[6:]}]}],
    initial={"output_token_ids": ids[:6], "output_chunk_lens": [2, 4], "role_sent": True},
)
stream(
    "s_vllm_state_tools",
    base,
    [{"choices": [{"index": 0, "token_ids": ids[-4:], "finish_reason": "stop"}]}],
    initial={
        "output_token_ids": ids[:-4],
        "output_chunk_lens": [len(ids) - 4],
        "role_sent": True,
        "tools_streamed": True,
        "last_tool_call_ids": ["call-fixed"],
    },
)
stream(
    "s_stop_then_more",
    base,
    [
        {"choices": [{"index": 0, "token_ids": think}]},
        {"choices": [{"index": 0, "token_ids": [EOS], "finish_reason": "stop"}]},
        {"choices": [{"index": 0, "token_ids": tok("after")}]},
    ],
)
stream(
    "s_parallel_off",
    {**base, "chat_request": {**cr, "parallel_tool_calls": False}},
    one_tok(call + call + [EOS]),
)
stream(
    "s_n2",
    base,
    [{"choices": [{"index": i % 2, "token_ids": [t]}]} for i, t in enumerate(ids[:20])],
)

multi = tok("<think>\n東京 🍂\n</think>\n\n長城 🎉 ok")


def lpc(xs):
    return {
        "content": [
            {
                "token_id": t,
                "logprob": -1,
                "top_logprobs": [
                    {"token_id": t, "logprob": -1},
                    {"token_id": (t * 7) % 150000, "logprob": -2},
                ],
            }
            for t in xs
        ]
    }


stream(
    "s_lp_multi",
    {**base, "chat_request": {**cr, "logprobs": True, "top_logprobs": 1}},
    [
        {
            "choices": [
                {"index": 0, "token_ids": multi[i : i + 2], "logprobs": lpc(multi[i : i + 2])}
            ]
        }
        for i in range(0, len(multi), 2)
    ],
)
add(
    "ns_lp_multi",
    {
        "generate_response": {
            "choices": [{"index": 0, "token_ids": multi, "logprobs": lpc(multi)}]
        },
        **base,
        "chat_request": {**cr, "logprobs": True, "top_logprobs": 2},
    },
)
add(
    "ns_stop_str",
    {
        "generate_response": {"choices": [{"index": 0, "token_ids": think + tok(" STOP here")}]},
        **base,
        "chat_request": {**cr, "stop": ["STOP"]},
    },
)
add(
    "ns_stop_int",
    {
        "generate_response": {
            "choices": [{"index": 0, "token_ids": think + [151643], "stop_reason": 151643}]
        },
        **base,
    },
)
add(
    "ns_include_stop",
    {
        "generate_response": {"choices": [{"index": 0, "token_ids": ids}]},
        **base,
        "chat_request": {**cr, "include_stop_str_in_output": True},
    },
)
stream(
    "s_include_stop",
    {**base, "chat_request": {**cr, "include_stop_str_in_output": True}},
    one_tok(ids),
)
stream("s_alt_eos", base, one_tok(think + [151643]))
stream("s_stop_empty_list", {**base, "chat_request": {**cr, "stop": []}}, one_tok(think + [EOS]))
stream(
    "s_named",
    {
        **base,
        "chat_request": {
            **cr,
            "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
        },
    },
    one_tok(tok('{"city": "Rome"}') + [EOS]),
)
stream(
    "s_required",
    {**base, "chat_request": {**cr, "tool_choice": "required"}},
    one_tok(tok('[{"name": "get_weather", "parameters": {"city": "X"}}]') + [EOS]),
)
stream(
    "s_thinking_off",
    {**base, "chat_request": {**cr, "chat_template_kwargs": {"enable_thinking": False}}},
    one_tok(tok("Plain answer.") + [EOS]),
)
good = 0
for name, body in cases:
    case = {"id": name, "endpoint": CH, "method": "POST", "request": body}
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
    if diffs:
        print("DIFF", name, ra["status"], rb["status"], diffs[:5])
    else:
        good += 1
print("same", good, "of", len(cases))
