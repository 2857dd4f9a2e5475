#!/usr/bin/env python3
"""Talk to tokenfront in gateway mode: plain httpx (JSON and SSE), then the OpenAI SDK.

    python docker/examples/client.py --base-url http://localhost:8080 [--api-key KEY]

With the compose `demo` profile the answers come from the scripted mock engine
(docker/examples/mock-script.json); with the `gpu` profile from vLLM.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import httpx

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}


def with_httpx(base_url: str, headers: dict[str, str], model: str) -> dict[str, Any]:
    """One non-streaming and one streaming chat request with nothing but httpx."""
    url = base_url.rstrip("/") + "/v1/chat/completions"
    messages = [{"role": "user", "content": "Hello, who are you?"}]
    with httpx.Client(headers=headers, timeout=60) as client:
        resp = client.post(url, json={"model": model, "messages": messages})
        resp.raise_for_status()
        answer = resp.json()["choices"][0]["message"]
        print("[httpx] reasoning:", (answer.get("reasoning") or "").strip())
        print("[httpx] content:  ", (answer.get("content") or "").strip())

        body = {"model": model, "messages": messages, "stream": True}
        streamed = ""
        with client.stream("POST", url, json=body) as stream:
            stream.raise_for_status()
            for line in stream.iter_lines():
                if not line.startswith("data: ") or line == "data: [DONE]":
                    continue
                chunk = json.loads(line[6:])
                if "error" in chunk:
                    raise RuntimeError(chunk["error"])
                for choice in chunk["choices"]:
                    streamed += choice["delta"].get("content") or ""
        print("[httpx] streamed: ", streamed.strip())
    return {"content": answer.get("content"), "streamed": streamed}


def with_openai(base_url: str, api_key: str, model: str) -> dict[str, Any]:
    """A tool call round trip and a streamed answer with the OpenAI Python SDK."""
    from openai import OpenAI

    client = OpenAI(base_url=base_url.rstrip("/") + "/v1", api_key=api_key, max_retries=0)
    messages: list[dict[str, Any]] = [{"role": "user", "content": "What is the weather in Paris?"}]
    first = client.chat.completions.create(model=model, messages=messages, tools=[WEATHER_TOOL])
    message = first.choices[0].message
    calls = message.tool_calls or []
    print("[openai] finish_reason:", first.choices[0].finish_reason)
    for call in calls:
        print("[openai] tool call:", call.function.name, call.function.arguments)
    messages.append(message.model_dump(exclude_none=True))
    for call in calls:
        messages.append(
            {"role": "tool", "tool_call_id": call.id, "content": '{"sky": "sunny", "celsius": 21}'}
        )
    stream = client.chat.completions.create(
        model=model, messages=messages, tools=[WEATHER_TOOL], stream=True
    )
    final = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    print("[openai] final answer:", final.strip())
    return {"tool_calls": [c.function.name for c in calls], "final": final}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default="http://localhost:8080")
    parser.add_argument("--api-key", default="not-needed")
    parser.add_argument("--model", default="qwen3")
    args = parser.parse_args(argv)
    headers = {"Authorization": f"Bearer {args.api_key}"}
    with_httpx(args.base_url, headers, args.model)
    with_openai(args.base_url, args.api_key, args.model)
    return 0


if __name__ == "__main__":
    sys.exit(main())
