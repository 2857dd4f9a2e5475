"""`--sse-keep-alive-interval`: a streamed answer that waits on the engine gets SSE comments."""

from __future__ import annotations

import json

import httpx
from gateway_support import Deployment, serve_in_thread

from tokenfront.api.app import create_app
from tokenfront.config import ServerSettings
from tokenfront.gateway.sse import KEEP_ALIVE
from tokenfront.tokenization.registry import ModelRegistry


def test_an_idle_stream_gets_keep_alive_comments_between_its_events(deployment: Deployment) -> None:
    settings = ServerSettings(engine_url=deployment.engine_url, sse_keep_alive_interval=0.1)
    app = create_app(ModelRegistry([deployment.model]), settings)
    body = {"model": "qwen3", "stream": True, "messages": [{"role": "user", "content": "drowsy"}]}
    with serve_in_thread(app) as url:
        raw = httpx.post(f"{url}/v1/chat/completions", json=body, timeout=30).content
    assert raw.count(KEEP_ALIVE) >= 3
    events = [part for part in raw.split(b"\n\n") if part and not part.startswith(b":")]
    assert events[-1] == b"data: [DONE]"
    chunks = [json.loads(e.removeprefix(b"data: ")) for e in events[:-1]]
    deltas = [c["choices"][0]["delta"] for c in chunks if c["choices"]]
    assert "".join(d.get("content") or d.get("reasoning") or "" for d in deltas) == "zz"
