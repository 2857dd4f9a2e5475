"""Which of vLLM's chat message schemas takes a message (`protocol.message_schemas`).

The fixture holds messages with what vLLM 0.33.0's `TypeAdapter(ChatCompletionMessageParam)`
did with them, recorded in its venv: `err` (no schema validates), `eager` (the custom schema
won: parts kept as a list), `lazy-ok` / `lazy-fail` (an openai schema won: the parts are an
iterator, and walking it passes / fails).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tokenfront.api.errors import APIError
from tokenfront.protocol.message_schemas import lazy_parts_fail, validated_lazily
from tokenfront.protocol.requests import check_message_shape

FIXTURE = Path(__file__).parent / "fixtures" / "message_union_vllm033.jsonl"
CASES = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]


def outcome(msg: dict[str, Any]) -> str:
    try:
        check_message_shape(0, msg)
    except APIError:
        return "err"
    if not validated_lazily(msg):
        return "eager"
    return "lazy-fail" if lazy_parts_fail(msg["role"], msg["content"]) else "lazy-ok"


@pytest.mark.parametrize("case", CASES, ids=[f"{i}-{c['vllm']}" for i, c in enumerate(CASES)])
def test_message_takes_the_schema_vllm_picks(case: dict[str, Any]) -> None:
    assert outcome(case["message"]) == case["vllm"]


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        # a tool message without a string tool_call_id only fits the custom schema
        ({"role": "tool", "content": ["a"]}, "eager"),
        ({"role": "tool", "content": ["a"], "tool_call_id": "c"}, "lazy-fail"),
        # a custom-only key set (even to null) makes the custom schema set more fields
        ({"role": "assistant", "content": [{"type": "text"}], "reasoning": None}, "eager"),
        ({"role": "assistant", "content": [{"type": "text"}]}, "lazy-fail"),
        # ... unless its value breaks that schema: the openai one then walks the parts
        (
            {"role": "assistant", "content": [{"type": "text", "text": 5}], "reasoning": True},
            "lazy-fail",
        ),
        # a well-formed part's fields count for the custom schema
        ({"role": "user", "content": [{"type": "text", "text": "x"}, {"type": "text"}]}, "eager"),
        ({"role": "user", "content": [{"type": "image_url", "image_url": {"u": 1}}]}, "lazy-fail"),
    ],
)
def test_measured_union_rules(message: dict[str, Any], expected: str) -> None:
    assert outcome(message) == expected
