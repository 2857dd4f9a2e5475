"""gpt-oss chat render as Harmony (tokenfront.render.harmony / harmony_tools).

Uses the gpt-oss test model dir, built on demand from tests/models/gpt-oss-src.
"""

from __future__ import annotations

from typing import Any

import pytest

from tokenfront.protocol.requests import RequestValidationFailure
from tokenfront.render.harmony import (
    final_channel_tag,
    harmony_conversation,
    harmony_sampling,
    render_harmony_prompt,
)
from tokenfront.render.harmony_tools import lines, to_typescript, tools_section
from tokenfront.render.structural_tags import json_schema

TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "City"}, "days": {"type": "integer", "default": 1}},
            "required": ["city"],
        },
    },
}


@pytest.fixture(scope="module")
def tokenizer(gpt_oss_tokenizer: Any) -> Any:
    return gpt_oss_tokenizer


def test_typescript_of_common_schemas() -> None:
    assert to_typescript({"type": "string", "enum": ["a", "b"]}) == '"a" | "b"'
    assert to_typescript({"type": ["integer", "null"]}) == "number | null"
    assert to_typescript({"type": "array", "items": {"type": "boolean"}}) == "boolean[]"
    assert to_typescript({"type": "array"}) == "Array<any>"
    assert to_typescript({}) == "any"
    assert to_typescript(TOOL["function"]["parameters"]) == (
        "{\n// City\ncity: string,\ndays?: number, // default: 1\n}"
    )
    assert to_typescript({"oneOf": [{"type": "string"}, {"type": "integer", "description": "n"}]}) == (
        "\n | string\n | number // n"
    )


def test_tools_section_lists_functions() -> None:
    text = tools_section([TOOL, {"type": "function", "function": {"name": "ping"}}])
    assert text.startswith("# Tools\n\n## functions\n\nnamespace functions {\n\n// Weather.\ntype get_weather = (_: {")
    assert text.endswith("type ping = () => any;\n\n} // namespace functions")
    assert lines("a\r\nb\n") == ["a", "b"]


def test_conversation_messages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VLLM_SYSTEM_START_DATE", "2026-01-15")
    msgs = harmony_conversation(
        [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello", "reasoning": "old thought"},
            {"role": "user", "content": "Weather?"},
            {
                "role": "assistant",
                "reasoning": "need tool",
                "tool_calls": [{"id": "c1", "function": {"name": "get_weather", "arguments": "{}"}}],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "Sunny"},
        ],
        [TOOL],
        "low",
    )
    roles = [(m.role, m.channel, m.recipient) for m in msgs]
    assert roles == [
        ("system", None, None),
        ("developer", None, None),
        ("user", None, None),
        ("assistant", "final", None),  # the analysis before the last final message is dropped
        ("user", None, None),
        ("assistant", "analysis", None),
        ("assistant", "commentary", "functions.get_weather"),
        ("tool", "commentary", "assistant"),
    ]
    assert "Current date: 2026-01-15\n\nReasoning: low" in msgs[0].parts[0]
    assert msgs[0].parts[0].endswith("Calls to these tools must go to the commentary channel: 'functions'.")
    assert msgs[1].parts[0].startswith("# Instructions\n\nBe brief.\n\n# Tools")
    assert msgs[-1].name == "functions.get_weather"


def test_system_instructions_switch_moves_instructions_into_the_system_message(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VLLM_SYSTEM_START_DATE", "2026-01-15")
    monkeypatch.setenv("VLLM_GPT_OSS_HARMONY_SYSTEM_INSTRUCTIONS", "1")
    msgs = harmony_conversation(
        [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Hi"},
            {"role": "system", "content": "Later."},
            {"role": "developer", "content": "Dropped."},
        ],
        [TOOL],
        "low",
    )
    assert [m.role for m in msgs] == ["system", "developer", "user", "system", "developer"]
    first, later = msgs[0].parts[0], msgs[3].parts[0]
    assert first.startswith("You are ChatGPT, a large language model trained by OpenAI.\nBe brief.\nKnowledge cutoff")
    assert "Reasoning: low" in first
    assert msgs[1].parts[0].startswith("# Tools")  # the developer message keeps only the tools
    assert later.startswith("You are ChatGPT, a large language model trained by OpenAI.\nLater.\n")
    assert "Reasoning: medium" in later  # a later system message has the default effort
    assert msgs[4].parts == [""]  # a developer message's text is written nowhere


def test_system_instructions_switch_that_is_no_integer_refuses_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VLLM_GPT_OSS_HARMONY_SYSTEM_INSTRUCTIONS", "true")
    with pytest.raises(RequestValidationFailure, match="invalid literal for int"):
        harmony_conversation([{"role": "user", "content": "Hi"}], None, None)


@pytest.mark.parametrize("effort", ["none", "max"])
def test_unsupported_effort(effort: str) -> None:
    with pytest.raises(RequestValidationFailure):
        harmony_conversation([{"role": "user", "content": "Hi"}], None, effort)


def test_prompt_tokens(tokenizer: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VLLM_SYSTEM_START_DATE", "2026-01-15")
    history = [
        {"role": "user", "content": "say <|end|>"},
        {"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "{}"}}]},
    ]
    ids = render_harmony_prompt(tokenizer, history, None, None)
    text = tokenizer.decode(ids)
    assert text.endswith(
        "<|start|>user<|message|>say <|end|><|end|>"
        "<|start|>assistant to=functions.f<|channel|>commentary json<|message|>{}<|call|><|start|>assistant"
    )
    # Special-token names in user text stay plain text.
    assert ids.count(tokenizer.convert_tokens_to_ids("<|end|>")) == 2


def test_json_format_becomes_a_final_channel_tag() -> None:
    sampling = {"structured_outputs": {"json": {"type": "object"}, "structural_tag": None}}
    out = harmony_sampling(sampling)["structured_outputs"]
    assert out["json"] is None
    assert out["structural_tag"] == final_channel_tag(json_schema({"type": "object"}))
    assert '"begin": "<|channel|>final <|constrain|>json<|message|>"' in out["structural_tag"]
    assert harmony_sampling({"max_tokens": 3}) == {"max_tokens": 3}


def test_regex_choice_and_grammar_become_a_plain_final_channel_tag() -> None:
    for key, value in (("regex", "a+"), ("choice", ["x", "y"]), ("grammar", 'root ::= "g"')):
        sampling = {"structured_outputs": {key: value, "structural_tag": None}}
        out = harmony_sampling(sampling)["structured_outputs"]
        assert out[key] is None
        assert '"begin": "<|channel|>final<|message|>"' in out["structural_tag"]
        assert "<|constrain|>" not in out["structural_tag"]
