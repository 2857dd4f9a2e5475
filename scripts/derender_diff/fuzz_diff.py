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
A, B, VOCAB, SEED, N = (
    sys.argv[1],
    sys.argv[2],
    int(sys.argv[3]),
    int(sys.argv[4]),
    int(sys.argv[5]),
)
specials = [int(x) for x in sys.argv[6].split(",")] if len(sys.argv) > 6 else []
OOV = bool(os.environ.get("OOV"))
client = httpx.Client(timeout=120)
rng = random.Random(SEED)


def tid():
    r = rng.random()
    if r < 0.1 and specials:
        return rng.choice(specials)
    if r < 0.14 and OOV:
        return VOCAB + rng.randrange(300)
    if r < 0.5:
        return rng.randrange(min(VOCAB, 300))
    return rng.randrange(VOCAB)


def ids(n):
    return [tid() for _ in range(n)]


def lps(xs):
    return {
        "content": [
            {
                "token_id": t,
                "logprob": -1.0,
                "top_logprobs": [{"token_id": t, "logprob": -1.0}]
                + [{"token_id": tid(), "logprob": -2.0} for _ in range(rng.randint(0, 3))],
            }
            for t in xs
        ]
    }


def options(chat):
    o = {}
    if rng.random() < 0.4:
        o["skip_special_tokens"] = rng.random() < 0.5
    if rng.random() < 0.3:
        o["spaces_between_special_tokens"] = rng.random() < 0.5
    if rng.random() < 0.3:
        o["include_stop_str_in_output"] = True
    if rng.random() < 0.3:
        o["stop_token_ids"] = [tid()]
    if rng.random() < 0.2:
        o["ignore_eos"] = True
    if rng.random() < 0.2:
        o["min_tokens"] = rng.randint(0, 5)
    if rng.random() < 0.3:
        o["return_token_ids"] = True
    if chat:
        if rng.random() < 0.5:
            o.update(logprobs=True, top_logprobs=rng.randint(0, 3))
        o["messages"] = [{"role": "user", "content": "x"}]
    else:
        if rng.random() < 0.5:
            o["logprobs"] = rng.randint(0, 3)
        o["prompt"] = "x"
    return o


good = total = 0
for k in range(N):
    chat = rng.random() < 0.5
    ep = "/v1/chat/completions/derender" if chat else "/v1/completions/derender"
    out = ids(rng.randint(1, 20))
    prompt = ids(rng.randint(0, 9))
    withlp = rng.random() < 0.5
    req = options(chat) if rng.random() < 0.8 else None
    if rng.random() < 0.5:
        body = {}
        ch = {"index": 0, "token_ids": out, "finish_reason": rng.choice(["stop", "length", "stop"])}
        if withlp:
            ch["logprobs"] = lps(out)
        if chat:
            body = {"generate_response": {"choices": [ch]}, "prompt_token_ids": prompt}
            if req:
                body["chat_request"] = req
        else:
            body = {"generate_responses": [{"choices": [ch]}], "prompt_token_ids": [prompt]}
            if req:
                body["completion_request"] = req
        case = {"id": k, "endpoint": ep, "method": "POST", "request": body}
    else:
        chunks = []
        i = 0
        while i < len(out):
            n = rng.randint(1, 3)
            part = out[i : i + n]
            i += n
            c = {"index": 0, "token_ids": part}
            if withlp:
                c["logprobs"] = lps(part)
            if i >= len(out):
                c["finish_reason"] = rng.choice(["stop", "length"])
            chunks.append({"request_id": "g", "choices": [c]})
        base = {"prompt_token_ids": prompt}
        if req:
            base["chat_request" if chat else "completion_request"] = req
        case = {
            "id": k,
            "endpoint": ep,
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
        case, {"status": ra["status"], "response": ra["response"], "endpoint": ep}, rb
    )
    total += 1
    if diffs:
        print("DIFF", k, ra["status"], rb["status"], diffs[:4])
        print("  REQ", json.dumps(case["request"])[:600])
    else:
        good += 1
print("same", good, "of", total)
