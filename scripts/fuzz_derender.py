"""Random generated token ids through the derender endpoints of every config; reports 5xx answers.

Each config of ../shared/parity/configs.json and tests/golden/configs*.json is served in process
(Starlette's TestClient, no port). Per config, `--requests` derender calls: chat one-shot, chat
streamed in random chunks (1, 2, 3, 5 tokens or all at once) and completions one-shot with
logprobs, stop strings and echo. The ids mix the tokens of the parser markers of many families
with random low ids, and the chat request varies tools, tool_choice, include_reasoning,
skip_special_tokens and thinking switches. A 4xx is a valid answer; a 5xx is a bug.

    .venv/bin/python scripts/fuzz_derender.py [--seed N] [--requests N] [CONFIG ...]

CONFIG is `configs.json:qwen3-hermes` (file name, colon, config name); default: every config.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"

MARKER_TEXT = (
    '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call> '
    "<think>hm</think> [TOOL_CALLS] [THINK] <|tool_calls_section_begin|> <|tool_call_begin|> "
    "<seed:tool_call><function=add><parameter=n>3</parameter></function></seed:tool_call> "
    '{"name": "add", "parameters": {"n": 1}} [get_weather(city="x")] functools[{"name": "add"}] '
    '<tool_calls> <answer> </answer> <minimax:tool_call><invoke name="add">'
    '<parameter name="n">1</parameter></invoke></minimax:tool_call> <|action_start|><|plugin|>'
)
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "n": {"type": "integer"}},
            },
        },
    }
    for name in ("get_weather", "add", "search")
]


def configs() -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    files = [*sorted((REPO / "tests" / "golden").glob("configs*.json"))]
    files.append(SHARED / "parity" / "configs.json")
    for path in files:
        for name, cfg in json.loads(path.read_text()).items():
            if not isinstance(cfg, dict) or "model" not in cfg:
                continue
            model = cfg["model"]
            root = REPO if model.startswith("repo:") else SHARED
            found[f"{path.name}:{name}"] = dict(cfg, model=str(root / model.removeprefix("repo:")))
    return found


def client_for(cfg: dict[str, Any]) -> Any:
    from starlette.testclient import TestClient

    from tokenfront.cli import app_from_argv

    argv = ["--model", cfg["model"], "--served-model-name", cfg["served_model_name"], *cfg["args"]]
    return TestClient(app_from_argv(argv), raise_server_exceptions=False)


def chat_request(rng: random.Random, model: str) -> dict[str, Any]:
    request: dict[str, Any] = {
        "model": model,
        "messages": [{"role": "user", "content": "hi"}],
        "tool_choice": rng.choice(
            ["auto", "auto", "required", "none", {"type": "function", "function": {"name": "add"}}]
        ),
        "include_reasoning": rng.random() < 0.9,
        "skip_special_tokens": rng.random() < 0.8,
    }
    if rng.random() < 0.8:
        request["tools"] = TOOLS
    if rng.random() < 0.2:
        request["logprobs"] = True
    kwargs = rng.choice([None, {"enable_thinking": False}, {"thinking": True}])
    if kwargs is not None:
        request["chat_template_kwargs"] = kwargs
    return request


def completion_body(rng: random.Random, model: str, ids: list[int]) -> dict[str, Any]:
    request: dict[str, Any] = {
        "model": model,
        "prompt": "hi",
        "echo": rng.random() < 0.3,
        "skip_special_tokens": rng.random() < 0.8,
    }
    choice: dict[str, Any] = {"index": 0, "token_ids": ids, "finish_reason": "stop"}
    if rng.random() < 0.4:
        request["logprobs"] = 2
        choice["logprobs"] = {
            "content": [
                {
                    "token_id": t,
                    "logprob": -0.5,
                    "rank": 1,
                    "top_logprobs": [
                        {"token_id": t, "logprob": -0.5, "rank": 1},
                        {"token_id": rng.randrange(1000), "logprob": -1.5, "rank": 2},
                    ],
                }
                for t in ids
            ]
        }
    if rng.random() < 0.3:
        request["stop"] = rng.choice([["</", "}"], "\n"])
    return {
        "model": model,
        "completion_request": request,
        "prompt_token_ids": [[1, 2, 3]],
        "prompt_tokens": [3],
        "generate_responses": [{"request_id": "g", "choices": [choice]}],
    }


def fuzz(name: str, cfg: dict[str, Any], rng: random.Random, requests: int) -> list[str]:
    """The 5xx answers for `requests` random derender calls on one config."""
    failures: list[str] = []
    model = cfg["served_model_name"]
    with client_for(cfg) as client:
        marker_ids = client.post(
            "/tokenize", json={"model": model, "prompt": MARKER_TEXT, "add_special_tokens": False}
        ).json()["tokens"]

        def post(url: str, body: dict[str, Any], what: str) -> Any:
            answer = client.post(url, json=body)
            if answer.status_code >= 500:
                failures.append(f"{name} {what} {answer.status_code}: {json.dumps(body)[:800]}")
            return answer

        for _ in range(requests):
            size = rng.randint(1, 60)
            ids = [
                rng.choice(marker_ids) if rng.random() < 0.8 else rng.randrange(1000)
                for _ in range(size)
            ]
            base = {
                "model": model,
                "chat_request": chat_request(rng, model),
                "prompt_token_ids": [1, 2, 3],
                "prompt_tokens": 3,
            }
            kind = rng.randrange(3)
            if kind == 0:
                post("/v1/completions/derender", completion_body(rng, model, ids), "completion")
            elif kind == 1:
                choice = {
                    "index": 0,
                    "token_ids": ids,
                    "finish_reason": rng.choice(["stop", "length"]),
                }
                body = base | {"generate_response": {"request_id": "g", "choices": [choice]}}
                post("/v1/chat/completions/derender", body, "chat")
            else:
                state, at = None, 0
                while at < len(ids):
                    step = rng.choice([1, 1, 2, 3, 5, len(ids)])
                    chunk: dict[str, Any] = {"index": 0, "token_ids": ids[at : at + step]}
                    at += step
                    if at >= len(ids):
                        chunk["finish_reason"] = "stop"
                    body = base | {
                        "stream": True,
                        "stream_state": state,
                        "generate_chunk": {"request_id": "g", "choices": [chunk]},
                    }
                    answer = post("/v1/chat/completions/derender", body, "stream")
                    if answer.status_code != 200:
                        break
                    state = answer.json().get("stream_state")
    return failures


def main() -> None:
    from tokenfront.tokenization.registry import ModelLoadError

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("configs", nargs="*", help="file:config names (default: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--requests", type=int, default=60, help="derender calls per config")
    args = parser.parse_args()
    found = configs()
    rng = random.Random(args.seed)
    failures: list[str] = []
    names = args.configs or list(found)
    for name in names:
        try:
            got = fuzz(name, found[name], rng, args.requests)
        except ModelLoadError as exc:  # a recorded start-up refusal (vLLM refuses it too)
            print(f"{name}: does not start ({str(exc).splitlines()[0][:120]})", flush=True)
            continue
        failures += got
        print(f"{name}: {len(got)} server errors", flush=True)
    print(f"{len(names)} configs, {len(failures)} server errors")
    for line in failures:
        print(line)


if __name__ == "__main__":
    main()
