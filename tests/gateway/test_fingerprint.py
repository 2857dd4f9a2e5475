"""`--fingerprint-mode` / `--fingerprint-value`: the system_fingerprint of gateway answers, placed
where vLLM's OpenAI server places it."""

from __future__ import annotations

import json
import re

import httpx
from gateway_support import Deployment

from tokenfront.config import ServerSettings
from tokenfront.gateway.fingerprint import stamp_chunk, system_fingerprint

HELLO = [{"role": "user", "content": "hello"}]


def test_modes(deployment: Deployment) -> None:
    models = [deployment.model]
    full = system_fingerprint(ServerSettings(), models)
    assert full is not None and re.fullmatch(r"tokenfront-[^-]+-[0-9a-f]{8}", full)
    assert system_fingerprint(ServerSettings(fingerprint_mode="hash"), models) == full
    custom = ServerSettings(fingerprint_mode="custom", fingerprint_value="fleet-7")
    assert system_fingerprint(custom, models) == "fleet-7"
    assert system_fingerprint(ServerSettings(fingerprint_mode="none"), models) is None


def test_a_stream_carries_it_on_finishing_chunks_or_on_the_usage_chunk() -> None:
    finishing = {"choices": [{"index": 0, "finish_reason": "stop"}]}
    middle = {"choices": [{"index": 0, "finish_reason": None}]}
    usage = {"choices": [], "usage": {"total_tokens": 3}}
    for chunk in (finishing, middle, usage):
        stamp_chunk(chunk, "fp", include_usage=False)
    assert [c.get("system_fingerprint") for c in (finishing, middle, usage)] == ["fp", None, None]
    finishing.pop("system_fingerprint")
    for chunk in (finishing, usage):
        stamp_chunk(chunk, "fp", include_usage=True)
    assert [c.get("system_fingerprint") for c in (finishing, usage)] == [None, "fp"]


def _events(raw: bytes) -> list[dict[str, object]]:
    parts = [p.removeprefix(b"data: ") for p in raw.split(b"\n\n") if p.startswith(b"data: {")]
    return [json.loads(p) for p in parts]


def test_gateway_answers_carry_the_fingerprint(deployment: Deployment) -> None:
    url = deployment.gateway_url
    body = {"model": "qwen3", "messages": HELLO}
    answer = httpx.post(f"{url}/v1/chat/completions", json=body, timeout=30).json()
    assert str(answer["system_fingerprint"]).startswith("tokenfront-")
    streamed = _events(httpx.post(f"{url}/v1/chat/completions", json={**body, "stream": True}, timeout=30).content)
    stamped = [c for c in streamed if c.get("system_fingerprint")]
    assert len(stamped) == 1 and stamped[0]["choices"][0]["finish_reason"] is not None
    with_usage = {**body, "stream": True, "stream_options": {"include_usage": True}}
    streamed = _events(httpx.post(f"{url}/v1/chat/completions", json=with_usage, timeout=30).content)
    stamped = [c for c in streamed if c.get("system_fingerprint")]
    assert len(stamped) == 1 and stamped[0]["choices"] == [] and stamped[0]["usage"]
    completion = httpx.post(f"{url}/v1/completions", json={"model": "qwen3", "prompt": "hi", "max_tokens": 4}, timeout=30)
    assert completion.json()["system_fingerprint"] == answer["system_fingerprint"]
