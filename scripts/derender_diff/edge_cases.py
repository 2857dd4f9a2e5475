"""Send edge-case derender requests to vLLM (A) and tokenfront (B) and compare like the harness."""

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
CO = "/v1/completions/derender"
U = [{"role": "user", "content": "hi"}]
cases = []


def add(name, ep, body):
    cases.append((name, ep, body))


def stream(name, ep, base, chunks, initial=None):
    cases.append(
        (
            name,
            ep,
            {
                "kind": "stream",
                "base": base,
                "chunks": chunks,
                **({"initial_state": initial} if initial is not None else {}),
            },
        )
    )


# OOV ids
add(
    "oov_out",
    CH,
    {"generate_response": {"choices": [{"index": 0, "token_ids": [9707, 151700, 151645]}]}},
)
add(
    "oov_out_big",
    CH,
    {"generate_response": {"choices": [{"index": 0, "token_ids": [9707, 2**33]}]}},
)
add(
    "oov_prompt",
    CH,
    {
        "prompt_token_ids": [151700],
        "generate_response": {"choices": [{"index": 0, "token_ids": [9707]}]},
    },
)
add(
    "oov_prompt_big",
    CH,
    {
        "prompt_token_ids": [2**33],
        "generate_response": {"choices": [{"index": 0, "token_ids": [9707]}]},
    },
)
add(
    "oov_lp",
    CH,
    {
        "generate_response": {
            "choices": [
                {
                    "index": 0,
                    "token_ids": [9707],
                    "logprobs": {
                        "content": [
                            {
                                "token_id": 151700,
                                "logprob": -1,
                                "top_logprobs": [{"token_id": 151700, "logprob": -1}],
                            }
                        ]
                    },
                }
            ]
        }
    },
)
add(
    "neg_lp",
    CH,
    {
        "generate_response": {
            "choices": [
                {
                    "index": 0,
                    "token_ids": [9707],
                    "logprobs": {"content": [{"token_id": -4, "logprob": -1}]},
                }
            ]
        }
    },
)
add(
    "oov_cmpl",
    CO,
    {"generate_responses": [{"choices": [{"index": 0, "token_ids": [9707, 160000]}]}]},
)
# misc shapes
add(
    "null_finish",
    CH,
    {"generate_response": {"choices": [{"index": 0, "token_ids": [9707], "finish_reason": None}]}},
)
add(
    "null_finish_cmpl",
    CO,
    {
        "generate_responses": [
            {"choices": [{"index": 0, "token_ids": [9707], "finish_reason": None}]}
        ]
    },
)
add(
    "stop_reason_bool",
    CH,
    {
        "generate_response": {
            "choices": [{"index": 0, "token_ids": [9707, 151645], "stop_reason": True}]
        }
    },
)
add(
    "stop_reason_float",
    CH,
    {
        "generate_response": {
            "choices": [{"index": 0, "token_ids": [9707, 151645], "stop_reason": 151645.0}]
        }
    },
)
add(
    "min_tokens_neg",
    CH,
    {
        "generate_response": {"choices": [{"index": 0, "token_ids": [9707, 1879, 13, 21927]}]},
        "chat_request": {"messages": U, "stop": ["Hello"], "min_tokens": -2},
    },
)
add(
    "prompt_tokens_neg",
    CH,
    {"prompt_tokens": -5, "generate_response": {"choices": [{"index": 0, "token_ids": [9707]}]}},
)
add(
    "metrics",
    CH,
    {
        "generate_response": {
            "metrics": {"time_to_first_token_ms": 1.5, "extra": 3},
            "choices": [{"index": 0, "token_ids": [9707]}],
        }
    },
)
add(
    "prompt_lp_inf",
    CH,
    {
        "generate_response": {
            "prompt_logprobs": [None, {"5": {"logprob": -1.0, "rank": 2, "decoded_token": "x"}}],
            "choices": [{"index": 0, "token_ids": [9707]}],
        }
    },
)
add(
    "empty_stop",
    CH,
    {
        "generate_response": {"choices": [{"index": 0, "token_ids": [9707, 1879]}]},
        "chat_request": {"messages": U, "stop": ""},
    },
)
add(
    "lp_null_content",
    CH,
    {
        "generate_response": {
            "choices": [{"index": 0, "token_ids": [9707], "logprobs": {"content": None}}]
        }
    },
)
add(
    "lp_null_content_cmpl",
    CO,
    {"generate_responses": [{"choices": [{"index": 0, "token_ids": [9707], "logprobs": {}}]}]},
)
add(
    "lp_top_m1",
    CH,
    {
        "generate_response": {
            "choices": [
                {
                    "index": 0,
                    "token_ids": [9707],
                    "logprobs": {
                        "content": [
                            {
                                "token_id": 9707,
                                "logprob": -1,
                                "top_logprobs": [
                                    {"token_id": 9707, "logprob": -1},
                                    {"token_id": 1, "logprob": -2},
                                ],
                            }
                        ]
                    },
                }
            ]
        },
        "chat_request": {"messages": U, "logprobs": True, "top_logprobs": -1},
    },
)
add(
    "dup_top_cmpl",
    CO,
    {
        "generate_responses": [
            {
                "choices": [
                    {
                        "index": 0,
                        "token_ids": [9707],
                        "logprobs": {
                            "content": [
                                {
                                    "token_id": 9707,
                                    "logprob": -1,
                                    "top_logprobs": [
                                        {"token_id": 9707, "logprob": -1},
                                        {"token_id": 9707, "logprob": -2},
                                    ],
                                }
                            ]
                        },
                    }
                ]
            }
        ],
        "completion_request": {"prompt": "x", "logprobs": 0},
    },
)
add("stream_missing", CH, {"stream": True})
add("stream_str", CH, {"stream": "true", "generate_chunk": {"choices": []}})
add("stream_int1", CH, {"stream": 1, "generate_chunk": {"choices": []}})
add("stream_false_gc", CH, {"stream": False, "generate_chunk": {"choices": []}})
add(
    "extra_fields",
    CH,
    {
        "foo": 1,
        "generate_response": {"bar": 2, "choices": [{"index": 0, "token_ids": [9707], "baz": 3}]},
    },
)
add(
    "choice_idx_str",
    CH,
    {"generate_response": {"choices": [{"index": "3", "token_ids": ["9707"]}]}},
)
add(
    "cmpl_prompt_tokens_mismatch",
    CO,
    {
        "generate_responses": [{"choices": [{"index": 0, "token_ids": [1]}]}],
        "prompt_tokens": [1, 2],
    },
)
add(
    "chat_request_invalid",
    CH,
    {
        "generate_response": {"choices": [{"index": 0, "token_ids": [9707]}]},
        "chat_request": {"messages": U, "top_logprobs": 3},
    },
)
add(
    "cmpl_request_invalid",
    CO,
    {
        "generate_responses": [{"choices": [{"index": 0, "token_ids": [9707]}]}],
        "completion_request": {},
    },
)
add(
    "model_empty",
    CH,
    {"model": "", "generate_response": {"choices": [{"index": 0, "token_ids": [9707]}]}},
)
add(
    "spaces_false",
    CO,
    {
        "generate_responses": [
            {"choices": [{"index": 0, "token_ids": [32, 151645, 33, 151644, 151645, 356]}]}
        ],
        "completion_request": {
            "prompt": "x",
            "skip_special_tokens": False,
            "spaces_between_special_tokens": False,
        },
    },
)
add(
    "include_stop_length",
    CH,
    {
        "generate_response": {
            "choices": [{"index": 0, "token_ids": [9707, 151645], "finish_reason": "length"}]
        }
    },
)
add(
    "eos_not_last",
    CH,
    {"generate_response": {"choices": [{"index": 0, "token_ids": [151645, 9707]}]}},
)
add(
    "stop_str_reported_missing",
    CH,
    {
        "generate_response": {
            "choices": [{"index": 0, "token_ids": [9707, 1879], "stop_reason": "zzz"}]
        }
    },
)
add(
    "stop_int_not_last",
    CH,
    {"generate_response": {"choices": [{"index": 0, "token_ids": [9707, 1879], "stop_reason": 5}]}},
)
# streams
stream(
    "s_vllm_state",
    CH,
    {},
    [{"choices": [{"index": 0, "token_ids": [1879]}]}],
    initial={
        "prev_tokens": ["Hello"],
        "prefix_offset": 0,
        "read_offset": 1,
        "role_sent": True,
        "logprob_context_token_ids": [9707],
    },
)
stream(
    "s_vllm_state_cmpl",
    CO,
    {},
    [{"choices": [{"index": 0, "token_ids": [1879]}]}],
    initial={
        "prev_tokens": ["Hello"],
        "prefix_offset": 0,
        "read_offset": 1,
        "logprob_text_offset": 5,
    },
)
stream(
    "s_vllm_state_weird",
    CH,
    {},
    [{"choices": [{"index": 0, "token_ids": [1879]}]}],
    initial={"prev_tokens": ["Hello"], "prefix_offset": 3, "read_offset": 9},
)
stream("s_oov", CH, {}, [{"choices": [{"index": 0, "token_ids": [151700]}]}])
stream(
    "s_oov_prompt",
    CH,
    {"prompt_token_ids": [151700]},
    [{"choices": [{"index": 0, "token_ids": [9707]}]}],
)
stream(
    "s_empty_choice",
    CH,
    {},
    [
        {"choices": [{"index": 0}]},
        {"choices": [{"index": 0, "token_ids": [], "finish_reason": "stop"}]},
    ],
)
stream(
    "s_cmpl_empty",
    CO,
    {},
    [
        {"choices": [{"index": 0}]},
        {"choices": [{"index": 0, "token_ids": [9707], "finish_reason": "length"}]},
    ],
)
stream(
    "s_usage_noprompt",
    CO,
    {},
    [{"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": None}}],
)
stream(
    "s_lp_cmpl_empty_top",
    CO,
    {},
    [
        {
            "choices": [
                {
                    "index": 0,
                    "token_ids": [9707],
                    "logprobs": {"content": [{"token_id": 9707, "logprob": -1}]},
                }
            ]
        }
    ],
)
stream(
    "s_long",
    CH,
    {"prompt_token_ids": [1] * 40950},
    [{"choices": [{"index": 0, "token_ids": [1] * 20}]}],
)
stream(
    "s_cmpl_long_prompt",
    CO,
    {"prompt_token_ids": [1] * 40961},
    [{"choices": [{"index": 0, "token_ids": [1]}]}],
)
stream("s_state_int", CH, {}, [{"choices": [{"index": 0, "token_ids": [1]}]}], initial=5)
stream(
    "s_state_bad_lc",
    CH,
    {},
    [{"choices": [{"index": 0, "token_ids": [1]}]}],
    initial={"logprob_context_token_ids": [1, 2, 3, 4, 5]},
)

client = httpx.Client(timeout=120)
good = 0
for name, ep, body in cases:
    case = {"id": name, "endpoint": ep, "method": "POST", "request": body}
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
    golden = {"status": ra["status"], "response": ra["response"], "endpoint": ep}
    diffs = paritylib.compare_result(case, golden, rb)
    if diffs:
        print("DIFF", name, ra["status"], rb["status"], diffs[:4])
        print("   A:", json.dumps(ra["response"])[:300])
        print("   B:", json.dumps(rb["response"])[:300])
    else:
        good += 1
print("same", good, "of", len(cases))
