"""`system_fingerprint` of gateway answers (vLLM's `--fingerprint-mode` / `--fingerprint-value`).

vLLM's OpenAI server names its build and configuration: `full` / `hash` give
`<server>-<version>-<hash8>` (the hash of what answers depend on; tokenfront runs no parallel
engine, so the two are the same here), `custom` the given text, `none` null. The render and
derender endpoints keep null, as on vLLM's render server.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from tokenfront import __version__
from tokenfront.config import ServerSettings
from tokenfront.tokenization.registry import ServedModel


def system_fingerprint(settings: ServerSettings, models: Iterable[ServedModel]) -> str | None:
    if settings.fingerprint_mode == "none":
        return None
    if settings.fingerprint_mode == "custom":
        return settings.fingerprint_value
    identity = [
        [m.names, m.path, m.hf_config, m.max_model_len, m.options.tool_call_parser,
         m.options.reasoning_parser, m.chat_template]
        for m in models
    ]  # fmt: skip
    digest = hashlib.sha256(json.dumps(identity, sort_keys=True, default=str).encode()).hexdigest()
    return f"tokenfront-{__version__}-{digest[:8]}"


def stamp_chunk(chunk: dict[str, Any], fingerprint: str | None, include_usage: bool) -> None:
    """Where vLLM puts the fingerprint in a stream: on the final usage chunk when usage is
    asked for, else on each chunk that finishes a choice."""
    if fingerprint is None or "error" in chunk:
        return
    if include_usage:
        if not chunk["choices"] and chunk.get("usage") is not None:
            chunk["system_fingerprint"] = fingerprint
    elif any(choice.get("finish_reason") is not None for choice in chunk["choices"]):
        chunk["system_fingerprint"] = fingerprint
