#!/usr/bin/env python3
"""Record how oss-harmony 0.0.11 (vLLM 0.33.0's Harmony encoder) renders one message's header.

Run with the recording venv (oss-harmony is never a tokenfront dependency):
    TIKTOKEN_ENCODINGS_BASE=tests/models/gpt-oss /work/vllm-venv/bin/python scripts/record_harmony_headers.py
Writes tests/render/fixtures/harmony_headers.json.gz: for every combination of role, author name,
channel, recipient and content type, the token ids of the message (text parts "T", "<|end|>x")
after vLLM's legacy tool-call header rewrite (`_use_legacy_tool_call_headers`), or the error.
"""

from __future__ import annotations

import gzip
import itertools
import json
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "tests" / "render" / "fixtures" / "harmony_headers.json.gz"

ROLES = ["user", "assistant", "system", "developer", "tool"]
NAMES = [None, "bob", "functions.f"]
CHANNELS = [None, "analysis", "final", "commentary", "other"]
RECIPIENTS = [None, "all", "assistant", "functions.f", "x y"]
CONTENT_TYPES = [None, "json", "<|constrain|>json", "code", "<|constrain|>"]


def main() -> None:
    from openai_harmony import Author, Message, Role, TextContent
    from vllm.entrypoints.openai.parser.harmony_utils import (
        _use_legacy_tool_call_headers,
        get_encoding,
    )

    encoding = get_encoding()
    cases = []
    for role, name, channel, recipient, content_type in itertools.product(
        ROLES, NAMES, CHANNELS, RECIPIENTS, CONTENT_TYPES
    ):
        case = {"role": role, "name": name, "channel": channel, "recipient": recipient,
                "content_type": content_type, "parts": ["T", "<|end|>x"]}
        try:
            msg = Message(author=Author.new(Role(role), name),
                          content=[TextContent(text=t) for t in case["parts"]])
            if channel:
                msg = msg.with_channel(channel)
            if recipient:
                msg = msg.with_recipient(recipient)
            if content_type:
                msg = msg.with_content_type(content_type)
            case["ids"] = _use_legacy_tool_call_headers(list(encoding.render(msg)))
        except Exception as exc:  # noqa: BLE001 - the encoder's refusal is the recorded fact
            case["error"] = str(exc)
        cases.append(case)
    with gzip.open(OUT, "wt", encoding="utf-8") as out:
        out.write(json.dumps(cases, separators=(",", ":")) + "\n")
    print(f"{len(cases)} cases -> {OUT}")


if __name__ == "__main__":
    main()
